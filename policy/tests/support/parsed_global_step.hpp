// The reference answer for the trainer_state.json probe: nlohmann::json::parse of the whole text,
// then its top-level global_step if that is an int64 integer. Test support; depends on nlohmann.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::testing {

// What parsing the whole text as a tree says: an object whose global_step is an int64 integer.
inline std::optional<std::int64_t> parsed_global_step(std::string_view text) {
    if (text.find('\0') != std::string_view::npos) {
        return std::nullopt;  // nlohmann's lexer would stop there; the probe refuses such a text
    }
    const auto document = nlohmann::json::parse(text, nullptr, false);
    if (!document.is_object()) {
        return std::nullopt;
    }
    const auto found = document.find("global_step");
    if (found == document.end() || !found->is_number_integer() ||
        (found->is_number_unsigned() && found->get<std::uint64_t>() > INT64_MAX)) {
        return std::nullopt;
    }
    return found->get<std::int64_t>();
}

}  // namespace ckpt::testing
