// The harness's own failure, kept apart from anything the code under test does: an external
// callback that left the simulated surface, broke the protocol, hung or exited. A run that meets
// one ends as `harness_error` (exit status 2), never as a property violation.
#pragma once

#include <stdexcept>

namespace ckpt::sim {

class HarnessError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace ckpt::sim
