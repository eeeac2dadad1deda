// The named members located by the validating scanner (json_scanner.hpp) and each parsed on its
// own by nlohmann: a member's text is a valid document, so it gives the value the DOM parse
// would (same numbers, strings and duplicate-key rule) at the cost of that member alone.
#include "sim/checks/top_level_fields.hpp"

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/checks/json_scanner.hpp"

namespace ckpt::sim {

namespace {

// The integer a plain integer lexeme stands for, in the type nlohmann's lexer gives it; nothing
// for a lexeme with a fraction or an exponent, or one that overflows (the lexer reads a double).
template <typename Integer>
std::optional<nlohmann::json> integer_value(std::string_view text) {
    Integer value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return nlohmann::json(value);
}

}  // namespace

nlohmann::json parse_member_value(std::string_view text) {
    if (text == "true" || text == "false") {
        return nlohmann::json(text == "true");
    }
    if (text == "null") {
        return nlohmann::json(nullptr);
    }
    if (text.size() >= 2 && text.front() == '"' && text.find('\\') == std::string_view::npos) {
        return nlohmann::json(std::string(text.substr(1, text.size() - 2)));
    }
    if (!text.empty() && text.front() == '-') {
        if (auto value = integer_value<std::int64_t>(text)) {
            return std::move(*value);
        }
    } else if (auto value = integer_value<std::uint64_t>(text)) {
        return std::move(*value);
    }
    // The lexer reads any other number with strtod; from_chars rounds correctly too, so where it
    // reads the whole lexeme without a range error both give the same double.
    if (!text.empty() && (text.front() == '-' || (text.front() >= '0' && text.front() <= '9'))) {
        double value = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc() && end == text.data() + text.size()) {
            return nlohmann::json(value);
        }
    }
    return nlohmann::json::parse(text);
}

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
            fields.emplace(std::string(names.begin()[i]), parse_member_value(values[i]));
        }
    }
    return fields;
}

}  // namespace ckpt::sim
