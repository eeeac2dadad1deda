// Tie-policy names and their parse, with Python's strip() and lower() so loose inputs (" Reset ")
// match the seed; the error message is the seed's, word for word.
#include "policy/core/tie_policy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {
namespace {

constexpr std::array<std::pair<std::string_view, TiePolicy>, 4> kNames{{
    {"reset", TiePolicy::reset},
    {"ignore", TiePolicy::ignore},
    {"stop", TiePolicy::stop},
    {"count", TiePolicy::count},
}};

}  // namespace

TiePolicy parse_tie_policy(std::string_view text) {
    std::string normalized(python::strip(text));
    std::transform(normalized.begin(), normalized.end(), normalized.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const auto& [name, policy] : kNames) {
        if (normalized == name) {
            return policy;
        }
    }
    throw ValueError("tie_policy must be one of: reset, ignore, stop, count");
}

std::string_view to_string(TiePolicy policy) {
    for (const auto& [name, value] : kNames) {
        if (value == policy) {
            return name;
        }
    }
    return "reset";
}

}  // namespace ckpt
