// The validators parse with std::from_chars over the whole text, which has no locale, no
// leading whitespace and no silent wrap-around, then compare with the bounds.
#include "sim/cli/numeric_flags.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <system_error>

namespace ckpt::cli {
namespace {

template <typename T>
std::string check_integer(const std::string& text, T lo, T hi) {
    const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    const bool digits_only =
        !text.empty() && text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos;
    if (!digits_only || text == "-") {
        return "expected " + range + ", got '" + text + "'";
    }
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range || (error == std::errc{} && (value < lo || value > hi))) {
        return "'" + text + "' is out of range: expected " + range;
    }
    if (error != std::errc{} || end != text.data() + text.size()) {
        return "expected " + range + ", got '" + text + "'";
    }
    return {};
}

}  // namespace

CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) {
            // No sign at all: check_integer would read a '-' as a sign.
            if (!text.empty() && text[0] == '-') {
                return "'" + text + "' is negative: expected an integer from " + std::to_string(lo) + " to " +
                       std::to_string(hi);
            }
            return check_integer<std::uint64_t>(text, lo, hi);
        },
        "UINT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator signed_in(std::int64_t lo, std::int64_t hi) {
    return CLI::Validator([lo, hi](std::string& text) { return check_integer<std::int64_t>(text, lo, hi); },
                          "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

namespace {

// A finite number above `lo` (or at it, when `lo_allowed`) and at most `hi`.
CLI::Validator finite_between(double lo, bool lo_allowed, double hi, const char* name) {
    return CLI::Validator(
        [lo, lo_allowed, hi](std::string& text) {
            double value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) ||
                value < lo || (value == lo && !lo_allowed) || value > hi) {
                return std::string("expected a number ") + (lo_allowed ? "of at least " : "greater than ") +
                       std::to_string(lo) + " and at most " + std::to_string(hi) + ", got '" + text + "'";
            }
            return std::string();
        },
        name);
}

}  // namespace

CLI::Validator finite_positive(double hi) {
    return finite_between(0.0, false, hi, "POSITIVE");
}

CLI::Validator finite_non_negative(double hi) {
    return finite_between(0.0, true, hi, "NON-NEGATIVE");
}

}  // namespace ckpt::cli
