// Eight bytes of a text at a time, for the hot loops that skip long runs of ordinary bytes (the
// port's trainer_state.json probe, and the checkers' JSON scanner, the simulator's JSON text and its
// reader, which share only these bit tricks with it). The byte tests are the exact "has a
// byte" idioms: a borrow can only mark bytes above a true match, so whether any byte of the word matches is
// never wrong (which byte is not asked). Depends on the standard library only.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ckpt::byte_words {

inline constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

inline std::uint64_t load(const void* at) noexcept {
    std::uint64_t word = 0;
    std::memcpy(&word, at, sizeof word);
    return word;
}

// Whether a byte of `word` is below `bound`, for bounds up to 128.
constexpr bool has_byte_below(std::uint64_t word, std::uint64_t bound) noexcept {
    return ((word - kOnes * bound) & ~word & kHighBits) != 0;
}

constexpr bool has_byte(std::uint64_t word, unsigned char byte) noexcept {
    return has_byte_below(word ^ (kOnes * byte), 1);
}

// Whether every byte is printable ASCII or DEL (0x20..0x7F) and neither '"' nor '\\': the bytes
// a JSON string holds as they are.
constexpr bool all_unescaped_json(std::uint64_t word) noexcept {
    return (word & kHighBits) == 0 && !has_byte_below(word, 0x20) && !has_byte(word, '"') &&
           !has_byte(word, '\\');
}

// The same without DEL: printable ASCII (0x20..0x7E) but '"' and '\\', the bytes nlohmann's
// dump() copies as they are (it escapes DEL with ensure_ascii).
constexpr bool all_plain_json(std::uint64_t word) noexcept {
    return all_unescaped_json(word) && !has_byte(word, 0x7f);
}

// How many of the eight bytes at `at` are spaces before the first that is not (8 when all are),
// on a little-endian machine; elsewhere 8 or 1, which a loop that skips spaces also accepts.
// `at` must have eight readable bytes and point at a space.
inline std::size_t leading_spaces(const void* at) noexcept {
    const std::uint64_t others = load(at) ^ (kOnes * ' ');
    if (others == 0) {
        return 8;
    }
    if constexpr (std::endian::native == std::endian::little) {
        return static_cast<std::size_t>(std::countr_zero(others)) / 8;
    } else {
        return 1;
    }
}

}  // namespace ckpt::byte_words
