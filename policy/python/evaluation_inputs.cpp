// The out-of-line refusals and the JSON coercions of score and step, with messages that quote
// repr() of the input as the seed's do.
#include "policy/python/evaluation_inputs.hpp"

#include <cmath>
#include <string>

#include "policy/base/errors.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {
namespace {

constexpr const char* kStepMessage = "checkpoint evaluation step must be a non-negative integer";

[[noreturn]] void throw_non_finite(const std::string& shown) {
    throw ValueError("checkpoint evaluation score must be finite, got " + shown);
}

}  // namespace

namespace detail {

void throw_non_finite_score(double score) {
    throw_non_finite(python::float_repr(score));
}

void throw_bad_step() {
    throw ValueError(kStepMessage);
}

}  // namespace detail

double coerce_finite_score(const nlohmann::json& score) {
    double value = 0.0;
    try {
        value = python::to_float(score);
    } catch (const ValueError&) {
        throw ValueError("checkpoint evaluation score must be numeric, got " + python::repr(score));
    }
    if (!std::isfinite(value)) {
        throw_non_finite(python::repr(score));
    }
    return value;
}

std::int64_t coerce_step(const nlohmann::json& step) {
    // int(step) must exist and equal step itself: that admits ints and integral floats only.
    if (step.is_number_integer() || step.is_number_unsigned()) {
        try {
            return check_step(python::to_int(step));
        } catch (const ValueError&) {
            throw ValueError(kStepMessage);
        }
    }
    if (step.is_number_float()) {
        const double raw = step.get<double>();
        if (std::isfinite(raw) && raw == std::trunc(raw) && raw >= 0.0 && raw < 9223372036854775808.0) {
            return static_cast<std::int64_t>(raw);
        }
    }
    throw ValueError(kStepMessage);
}

}  // namespace ckpt
