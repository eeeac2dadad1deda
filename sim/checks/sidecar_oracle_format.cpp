// The sidecar layout restated by hand: key order is sort_keys order, indentation is two spaces
// per level, and the seed's state mapping version is 1 inside the version 2 sidecar.
#include "sim/checks/sidecar_oracle_format.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>

#include "sim/checks/reference_policy.hpp"

namespace ckpt::sim {
namespace {

// std::to_string's digits, appended without a temporary.
void append_integer(std::string& out, std::int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

void append_integer_or_null(std::string& out, const std::optional<std::int64_t>& value) {
    if (value) {
        append_integer(out, *value);
    } else {
        out += "null";
    }
}

const char* boolean(bool value) {
    return value ? "true" : "false";
}

}  // namespace

std::string python_float_repr(double value) {
    char buffer[64];
    // Shortest round-trip digits in scientific form: "d[.ddd]e±XX".
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    std::string sci(buffer, result.ptr);
    const auto e = sci.find('e');
    std::string mantissa = sci.substr(0, e);
    const int exponent = std::atoi(sci.c_str() + e + 1);
    const bool negative = mantissa[0] == '-';
    if (negative) {
        mantissa.erase(0, 1);
    }
    std::string digits;
    for (char c : mantissa) {
        if (c != '.') {
            digits += c;
        }
    }
    std::string out;
    out.reserve(32);
    if (exponent < -4 || exponent >= 16) {
        out.append(digits, 0, 1);
        if (digits.size() > 1) {
            out.push_back('.');
            out.append(digits, 1, std::string::npos);
        }
        out.append(exponent < 0 ? "e-" : "e+");
        if (std::abs(exponent) < 10) {
            out.push_back('0');
        }
        out.append(std::to_string(std::abs(exponent)));
    } else if (exponent < 0) {
        out.append("0.");
        out.append(static_cast<std::size_t>(-exponent - 1), '0');
        out.append(digits);
    } else {
        const auto point = static_cast<std::size_t>(exponent + 1);
        out.append(digits, 0, std::min(point, digits.size()));
        if (digits.size() <= point) {
            out.append(point - digits.size(), '0');
            out.append(".0");
        } else {
            out.push_back('.');
            out.append(digits, point, std::string::npos);
        }
    }
    if (negative) {
        out.insert(out.begin(), '-');
    }
    return out;
}

std::string oracle_sidecar_text(const PolicySettings& settings, const CheckpointEvaluationState& state,
                                std::optional<std::int64_t> last_evaluated_step, int version) {
    // Appended piece by piece into one buffer: P9 lays this out at every durability deadline.
    std::string text;
    text.reserve(512);
    text += "{\n  \"checkpoint_eval_state\": {\n";
    text += "    \"patience\": ";
    append_integer(text, settings.patience);
    text += ",\n    \"patience_start_step\": ";
    append_integer(text, settings.patience_start_step);
    text += ",\n    \"state\": {\n";
    text += "      \"best_is_external\": ";
    text += boolean(state.best_is_external);
    text += ",\n      \"best_score\": ";
    text += state.best_score ? python_float_repr(*state.best_score) : std::string("null");
    text += ",\n      \"best_step\": ";
    append_integer_or_null(text, state.best_step);
    text += ",\n      \"evaluation_count\": ";
    append_integer(text, state.evaluation_count);
    text += ",\n      \"lower_score_streak\": ";
    append_integer(text, state.lower_score_streak);
    text += ",\n      \"stop_requested\": ";
    text += boolean(state.stop_requested);
    text += "\n    },\n";
    text += "    \"tie_policy\": \"";
    text += reference_tie_policy_name(settings.tie_policy);
    text += "\",\n";
    text += "    \"version\": 1\n  },\n";
    if (version == 1) {
        text += "  \"version\": 1\n}\n";  // the seed's document: no step at all
        return text;
    }
    text += "  \"last_evaluated_step\": ";
    append_integer_or_null(text, last_evaluated_step);
    text += ",\n  \"version\": 2\n}\n";
    return text;
}

std::string first_line_difference(const std::string& actual, const std::string& expected) {
    std::istringstream a(actual);
    std::istringstream b(expected);
    std::string line_a;
    std::string line_b;
    for (int line = 1;; ++line) {
        const bool more_a = static_cast<bool>(std::getline(a, line_a));
        const bool more_b = static_cast<bool>(std::getline(b, line_b));
        if (!more_a && !more_b) {
            return actual == expected ? std::string() : "trailing newline differs";
        }
        if (!more_a || !more_b || line_a != line_b) {
            return "line " + std::to_string(line) + ": " + (more_a ? line_a : "<end>") + " | expected " +
                   (more_b ? line_b : "<end>");
        }
    }
}

}  // namespace ckpt::sim
