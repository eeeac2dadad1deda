#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ckpt::sim {

// A fixed table between an enum and its names in scenario files, traces and the CLI.
template <typename Enum, std::size_t N>
struct EnumNames {
    std::array<std::pair<Enum, std::string_view>, N> entries;

    constexpr std::string_view name(Enum value) const noexcept {
        for (const auto& [candidate, text] : entries) {
            if (candidate == value) {
                return text;
            }
        }
        return "?";
    }
    constexpr std::optional<Enum> parse(std::string_view text) const noexcept {
        for (const auto& [candidate, candidate_text] : entries) {
            if (candidate_text == text) {
                return candidate;
            }
        }
        return std::nullopt;
    }
    // "a, b, c", for error messages that list what is allowed.
    std::string choices() const {
        std::string out;
        for (const auto& [value, text] : entries) {
            out += (out.empty() ? "" : ", ") + std::string(text);
        }
        return out;
    }
};

}  // namespace ckpt::sim
