// The seed's input rules for a score (finite) and a step (non-negative integer), typed and
// JSON-loose. Each refusal is a ValueError with the seed's message; the typed checks are inline
// with out-of-line throws, because observe()'s fast path runs them. Depends on base/ and python/.
#pragma once

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace ckpt {

// The seed's input rules for a score and a step, in two forms: typed values from C++ callers,
// and loosely typed JSON values as a Python caller (or a state file) would hand them over.
// Each throws ValueError with the seed's message.

namespace detail {
[[noreturn]] void throw_non_finite_score(double score);
[[noreturn]] void throw_bad_step();
}  // namespace detail

// A score must be finite. Inline, with the throw out of line: observe() runs these on every
// evaluation and a call into another file measurably slowed its few-nanosecond fast path.
inline double check_finite_score(double score) {
    if (!std::isfinite(score)) {
        detail::throw_non_finite_score(score);
    }
    return score;
}
// A step must be a non-negative integer.
inline std::int64_t check_step(std::int64_t step) {
    if (step < 0) {
        detail::throw_bad_step();
    }
    return step;
}

// float(score), then the finiteness rule; the message quotes repr(score).
double coerce_finite_score(const nlohmann::json& score);
// Booleans are rejected (a bool is an int in Python but never a Trainer step); integral floats
// such as 3.0 are accepted, 3.5 and "3" are not.
std::int64_t coerce_step(const nlohmann::json& step);

}  // namespace ckpt
