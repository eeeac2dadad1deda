// The named members located by the validating scanner (json_scanner.hpp) and each parsed on its
// own by nlohmann: a member's text is a valid document, so it gives the value the DOM parse
// would (same numbers, strings and duplicate-key rule) at the cost of that member alone.
#include "sim/checks/top_level_fields.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "sim/checks/json_scanner.hpp"

namespace ckpt::sim {

std::optional<std::map<std::string, nlohmann::json, std::less<>>> read_top_level_fields(
    std::string_view text, std::initializer_list<std::string_view> names) {
    constexpr std::size_t kInline = 8;
    std::array<std::string_view, kInline> inline_values;
    std::vector<std::string_view> many_values(names.size() > kInline ? names.size() : 0);
    const std::span<std::string_view> values =
        names.size() > kInline ? std::span<std::string_view>(many_values)
                               : std::span<std::string_view>(inline_values.data(), names.size());
    if (scan_json(text, std::span<const std::string_view>(names.begin(), names.size()), values) !=
        JsonShape::object) {
        return std::nullopt;
    }
    std::map<std::string, nlohmann::json, std::less<>> fields;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!values[i].empty()) {
            fields.emplace(std::string(names.begin()[i]), nlohmann::json::parse(values[i]));
        }
    }
    return fields;
}

}  // namespace ckpt::sim
