// One input of the `ckptsim policy` protocol as the vector generator means it: the exact line
// written, plus what the seed makes of it (the value a spelling coerces to, or that it is
// refused). Expected answers are computed from the meaning, never by parsing the line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_state.hpp"

namespace ckpt::sim::conformance {

// A score as written, and the finite value float() gives it; empty: the seed refuses it.
struct ScoreInput {
    nlohmann::json literal;
    std::optional<double> value;
};

// A step as written, and the integer it stands for; empty: not a non-negative integer.
struct StepInput {
    nlohmann::json literal;
    std::optional<std::int64_t> value;
};

struct ObserveInput {
    ScoreInput score;
    StepInput step;
};

// `step` left out means the protocol's default, 0.
struct BaselineInput {
    ScoreInput score;
    std::optional<StepInput> step;
};

// A load payload and the state the seed builds from it before validating it; empty: refused
// before that (not a mapping, another version or other settings, no state mapping).
struct LoadInput {
    nlohmann::json payload;
    std::optional<CheckpointEvaluationState> candidate;
};

// A line that is not one of the protocol's forms: the answer is an input_error.
struct MalformedInput {
    std::string line;
};

using PolicyInput = std::variant<ObserveInput, BaselineInput, LoadInput, MalformedInput>;

// The line written to the implementation's stdin (without its newline).
std::string input_line(const PolicyInput& input);
std::vector<std::string> input_lines(const std::vector<PolicyInput>& inputs);

}  // namespace ckpt::sim::conformance
