// The answers the seed's policy gives to a sequence of protocol inputs, computed from each
// input's meaning with the reference restatement (sim/checks/reference_policy). Shares no
// code with CheckpointEvaluationPolicy or the `ckptsim policy` command.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/conformance/policy_inputs.hpp"

namespace ckpt::sim::conformance {

// The expected answer lines, one per input: {"decision", "state"} after an accepted observe,
// {"state"} after a baseline or load, {"error": {"kind"}, "state"} when the policy refuses
// (kind value_error or runtime_error), {"error": {"kind": "input_error"}} for a malformed line.
std::vector<nlohmann::json> reference_answers(const PolicySettings& settings,
                                              const std::vector<PolicyInput>& inputs);

// The seed's state_dict() of `state` under `settings`, spelled out.
nlohmann::json reference_state_dict(const PolicySettings& settings, const CheckpointEvaluationState& state);

// The seed's name for a tie policy, as the command-line flag and state_dict spell it.
const char* tie_policy_name(TiePolicy policy);

}  // namespace ckpt::sim::conformance
