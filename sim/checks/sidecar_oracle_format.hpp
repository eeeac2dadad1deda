// The checker's own writer of the sidecar bytes: what the seed's
// json.dump(payload, indent=2, sort_keys=True) + "\n" writes for a state, the run's settings and
// last_evaluated_step, restated here from the layout (never the policy's formats code), with
// floats in Python's repr. P9 compares the durable bytes with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"

namespace ckpt::sim {

// Python's repr of a finite float: the shortest digits that round-trip, positional for
// decimal exponents in [-4, 16), else d.ddde±XX; always a '.' or an exponent.
std::string python_float_repr(double value);

// At `version` 1, the seed's own document: the state and "version": 1, without a step.
std::string oracle_sidecar_text(const PolicySettings& settings, const CheckpointEvaluationState& state,
                                std::optional<std::int64_t> last_evaluated_step, int version = 2);

// The first line where two texts differ, as "line N: <a> | <b>"; empty when equal.
std::string first_line_difference(const std::string& actual, const std::string& expected);

}  // namespace ckpt::sim
