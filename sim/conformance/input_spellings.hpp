// Spellings of protocol inputs whose meaning under the seed's Python coercions is known by
// construction: valid and refused scores and steps, load payloads (nested or flat, settings
// spelled loosely or wrongly) and malformed lines. The vector generator draws from these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/conformance/policy_inputs.hpp"

namespace ckpt::sim::conformance {

ScoreInput score(double value);                   // a JSON number
ScoreInput score_as_string(double value);         // "0.25": float() of its shortest repr
ScoreInput score_as_integer(std::int64_t value);  // 2: float(2) == 2.0
StepInput step(std::int64_t value);               // a JSON integer
StepInput step_as_float(std::int64_t value);      // 10.0: int(10.0) == 10.0

ObserveInput observe(double value, std::int64_t at);
BaselineInput baseline(double value);
BaselineInput baseline(double value, std::int64_t at);

// Scores float() refuses or that are not finite: "nan", "inf", "abc", null, [], ...
const std::vector<ScoreInput>& refused_scores();
// Steps that are not non-negative integers: -1, 2.5, "3", true, null, ...
const std::vector<StepInput>& refused_steps();
// Lines that are not a protocol request: bad JSON, unknown keys, missing fields, two verbs, ...
const std::vector<std::string>& malformed_lines();

// How a load payload carries its settings.
enum class LoadForm {
    nested,        // the seed's state_dict(): version, settings and "state"
    nested_loose,  // the same with version 1.0, patience "N" and " TIE " upper-cased
    flat,          // the state's fields at the top level, no settings at all
};

// A load the seed accepts (up to the state's own consistency rules) holding `state`.
LoadInput load_state(const PolicySettings& settings, const CheckpointEvaluationState& state, LoadForm form);
// The same state with its counters and flags spelled loosely ("2", 2.0, 2.7, 1, ""), which
// int() and bool() turn back into `state`; best_step as a float when `float_step`.
LoadInput load_state_loosely(const PolicySettings& settings, const CheckpointEvaluationState& state,
                             bool float_step);
// Loads the seed refuses before it builds a state: another version, other settings, no state
// mapping, not a mapping at all. One per way of being refused.
std::vector<LoadInput> refused_loads(const PolicySettings& settings, const CheckpointEvaluationState& state);

}  // namespace ckpt::sim::conformance
