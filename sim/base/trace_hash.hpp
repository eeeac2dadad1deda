// FNV-1a 64 and the running hash of a trace: byte-defined, so equal traces hash equal on every
// compiler, library and CPU (the exploration's trace hash is how behaviour is fingerprinted).
// Not collision resistant against an adversary. Depends on the standard library only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::sim {

// FNV-1a, 64-bit variant (Fowler, Noll, Vo; draft-eastlake-fnv). It is defined byte by byte,
// so the same bytes hash to the same value on every compiler, standard library and CPU, which
// std::hash does not promise. It is not collision resistant against an adversary; it only has
// to tell two honest traces apart.
inline constexpr std::uint64_t kFnv1a64OffsetBasis = 0xcbf29ce484222325ULL;  // FNV-0 hash of the FNV text
inline constexpr std::uint64_t kFnv1a64Prime = 0x100000001b3ULL;             // 2^40 + 2^8 + 0xb3

// One-shot FNV-1a 64 of `bytes`, continuing from `state` (the offset basis for a fresh hash).
constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state = kFnv1a64OffsetBasis) {
    for (const char c : bytes) {
        state ^= static_cast<std::uint8_t>(c);
        state *= kFnv1a64Prime;
    }
    return state;
}

// The running hash of a trace. Updates are pure concatenation: update("ab") then update("c")
// equals update("abc"), so a caller that needs record boundaries must hash a separator (a
// trace hashes each JSONL line including its '\n').
class TraceHash {
  public:
    void update(std::string_view bytes) { state_ = fnv1a64(bytes, state_); }

    // Integers go in as 8 little-endian bytes, so the hash does not depend on the host's byte
    // order or on how the number would be formatted as text.
    void update_u64(std::uint64_t value) {
        for (int i = 0; i < 8; ++i) {
            state_ ^= static_cast<std::uint8_t>(value >> (8 * i));
            state_ *= kFnv1a64Prime;
        }
    }

    std::uint64_t value() const noexcept { return state_; }

    // Always 16 lowercase hex digits, so hashes compare as strings and line up in reports.
    std::string hex() const { return to_hex(state_); }

    static std::string to_hex(std::uint64_t value) {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string out(16, '0');
        for (int i = 15; i >= 0; --i) {
            out[static_cast<std::size_t>(i)] = kDigits[value & 0xfU];
            value >>= 4;
        }
        return out;
    }

  private:
    std::uint64_t state_ = kFnv1a64OffsetBasis;
};

}  // namespace ckpt::sim
