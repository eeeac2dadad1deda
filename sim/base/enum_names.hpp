// One table per enum between its values and the names scenario files, traces and the CLI use.
// A table lists every enumerator once, in declaration order, so a value indexes its name; the
// `complete()` check, static_asserted beside each table, fails to compile when an enumerator is
// added without a name. Depends on the standard library only.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ckpt::sim {

namespace enum_detail {

// Whether V is a named enumerator: GCC and Clang spell a named value "V = ns::E::name" in the
// function signature and an unnamed one "V = (ns::E)3". This lets a table check its own
// completeness without a hand-typed count or a marker enumerator.
template <auto V>
constexpr bool is_named_enumerator() noexcept {
    constexpr std::string_view signature = __PRETTY_FUNCTION__;
    constexpr auto at = signature.find("V = ");
    return at != std::string_view::npos && signature[at + 4] != '(';
}

template <typename Enum, std::size_t... I>
constexpr std::size_t count_leading_enumerators(std::index_sequence<I...>) noexcept {
    std::size_t count = 0;
    bool contiguous = true;
    ((contiguous = contiguous && is_named_enumerator<static_cast<Enum>(I)>(), count += contiguous ? 1 : 0),
     ...);
    return count;
}

}  // namespace enum_detail

// The number of enumerators of an enum whose values run 0, 1, 2, ... (up to 64).
template <typename Enum>
constexpr std::size_t enumerator_count() noexcept {
    return enum_detail::count_leading_enumerators<Enum>(std::make_index_sequence<64>{});
}

namespace enum_detail {
enum class Probe : unsigned char { first, second, third };
static_assert(enumerator_count<Probe>() == 3, "this compiler names enumerators differently");
}  // namespace enum_detail

template <typename Enum, std::size_t N>
struct EnumNames {
    std::array<std::pair<Enum, std::string_view>, N> entries;

    static constexpr std::size_t size() noexcept { return N; }

    // Every enumerator, once, in declaration order: the precondition of name() and operator[].
    constexpr bool complete() const noexcept {
        if (N != enumerator_count<Enum>()) {
            return false;
        }
        for (std::size_t i = 0; i < N; ++i) {
            if (entries[i].first != static_cast<Enum>(i)) {
                return false;
            }
        }
        return true;
    }

    constexpr std::string_view name(Enum value) const noexcept {
        const auto index = static_cast<std::size_t>(value);
        return index < N ? entries[index].second : "?";
    }
    // The name of the index-th enumerator, for arrays indexed by an enum.
    constexpr std::string_view operator[](std::size_t index) const noexcept { return entries[index].second; }
    constexpr Enum value(std::size_t index) const noexcept { return entries[index].first; }

    constexpr std::optional<Enum> parse(std::string_view text) const noexcept {
        for (const auto& [candidate, candidate_text] : entries) {
            if (candidate_text == text) {
                return candidate;
            }
        }
        return std::nullopt;
    }
    // "a, b, c", for error messages that list what is allowed; `first` skips leading values a
    // caller does not accept (FaultKind::none in a scenario file).
    std::string choices(std::size_t first = 0) const {
        std::string out;
        for (std::size_t i = first; i < N; ++i) {
            out += (out.empty() ? "" : ", ") + std::string(entries[i].second);
        }
        return out;
    }
};

// Deduces the table's size from its entries, so no count is typed by hand.
template <typename Enum, std::size_t N>
constexpr EnumNames<Enum, N> make_enum_names(const std::pair<Enum, std::string_view> (&entries)[N]) {
    EnumNames<Enum, N> names{};
    for (std::size_t i = 0; i < N; ++i) {
        names.entries[i] = entries[i];
    }
    return names;
}

}  // namespace ckpt::sim
