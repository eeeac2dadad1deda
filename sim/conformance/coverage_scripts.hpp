// The hand-written input sequences of the coverage set. Each is run under several
// configurations; what it must cover is checked from the generated file (the coverage test).
#pragma once

#include <string>
#include <vector>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/conformance/policy_inputs.hpp"

namespace ckpt::sim::conformance {

struct CoverageScript {
    const char* name;
    std::vector<PolicyInput> (*inputs)(const PolicySettings& settings);
};

const std::vector<CoverageScript>& coverage_scripts();

}  // namespace ckpt::sim::conformance
