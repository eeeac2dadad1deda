// The policy's failure types: the seed's ValueError (bad input) and RuntimeError (a call not
// allowed now), and Python's TypeError where the port does what a Python call with the wrong
// arguments does. The trainer, the CLI and the rank-zero envelope treat them differently, so they
// stay distinct; I/O failures are FileSystemError instead. Depends on nothing.
#pragma once

#include <stdexcept>
#include <string>

namespace ckpt {

// The seed raises two classes of failure and callers (the trainer, the CLI, the
// rank-zero broadcast envelope) treat them differently, so they stay distinct types.

// Bad input: a malformed score, step, setting or state payload (the seed's ValueError).
class ValueError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// A call that is well-formed but not allowed now: observing after a stop, a second save
// before the prior best committed, a failure broadcast from rank zero (the seed's RuntimeError).
class RuntimeError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A call with arguments its function does not take: the port's restore rebuilds a callback as
// Transformers' type(callback)(**args) does, and Python raises TypeError for a keyword that is
// not a parameter (a saved state from another class, or text a fault garbled).
class TypeError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace ckpt
