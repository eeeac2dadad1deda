// Eight bytes of a text at a time, for the hot loops that skip long runs of ordinary bytes (the
// checkers' JSON scanner, the simulator's JSON text and its reader). The byte tests are the exact "has a
// byte" idioms: a borrow can only mark bytes above a true match, so whether any byte of the word matches is
// never wrong (which byte is not asked). Depends on the standard library only.
#pragma once

#include <cstdint>
#include <cstring>

namespace ckpt::sim::byte_words {

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

}  // namespace ckpt::sim::byte_words
