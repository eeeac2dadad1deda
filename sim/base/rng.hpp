// The simulator's only source of randomness: one 64-bit seed, xoshiro256++ through splitmix64, and
// every mapping from bits to values written out, so a seed reproduces a run on any conforming
// compiler. Draws are bounded (asserted); streams derive by name or index without shifting each
// other. Depends on the standard library and trace_hash.hpp (FNV for stream names).
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

#include "sim/base/assert.hpp"
#include "sim/base/trace_hash.hpp"

namespace ckpt::sim {

// Everything random in a simulation is drawn here, from one 64-bit seed. The std:: engines are
// portable but the std:: distributions are not (their algorithms are implementation-defined), so
// a seed that fails under libstdc++ might pass under libc++. Every mapping from bits to values
// below is therefore spelled out, and a seed reproduces a run on any conforming compiler.

inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio, odd

// The splitmix64 output function (Steele, Lea, Flood 2014; Vigna's reference code): a bijective
// mixer, so distinct inputs never collide.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// splitmix64: a tiny generator whose only job here is to expand one seed into xoshiro's 256-bit
// state. Seeding xoshiro directly from a small seed would start it in a low-entropy state that
// takes many outputs to escape (and the all-zero state never escapes).
class SplitMix64 {
  public:
    constexpr explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

    constexpr std::uint64_t next() noexcept {
        state_ += kGoldenGamma;
        return mix64(state_);
    }

  private:
    std::uint64_t state_;
};

// xoshiro256++ 1.0 (Blackman, Vigna 2019): fast, 256 bits of state, passes BigCrush.
class Xoshiro256PlusPlus {
  public:
    using State = std::array<std::uint64_t, 4>;

    // The state must not be all zero; from_seed never produces that (splitmix64 is a bijection
    // over four consecutive counters, which cannot all map to zero).
    constexpr explicit Xoshiro256PlusPlus(const State& state) noexcept : s_(state) {}

    static constexpr Xoshiro256PlusPlus from_seed(std::uint64_t seed) noexcept {
        SplitMix64 expander(seed);
        State state{};
        for (auto& word : state) {
            word = expander.next();
        }
        return Xoshiro256PlusPlus(state);
    }

    constexpr std::uint64_t next() noexcept {
        const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    constexpr const State& state() const noexcept { return s_; }

  private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
        return (x << k) | (x >> (64 - k));
    }

    State s_;
};

// The full 128-bit product of two 64-bit numbers, as (high, low).
constexpr std::pair<std::uint64_t, std::uint64_t> mul_wide(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
    // __extension__ keeps -Wpedantic quiet about the non-ISO type; the result is identical to the
    // portable branch, only faster.
    __extension__ using U128 = unsigned __int128;
    const U128 product = static_cast<U128>(a) * b;
    return {static_cast<std::uint64_t>(product >> 64), static_cast<std::uint64_t>(product)};
#else
    const std::uint64_t a_lo = a & 0xffffffffULL;
    const std::uint64_t a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xffffffffULL;
    const std::uint64_t b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo;
    const std::uint64_t hi_lo = a_hi * b_lo;
    const std::uint64_t lo_hi = a_lo * b_hi;
    const std::uint64_t hi_hi = a_hi * b_hi;
    const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffULL) + lo_hi;
    return {hi_hi + (hi_lo >> 32) + (cross >> 32), (cross << 32) | (lo_lo & 0xffffffffULL)};
#endif
}

// The simulator's random stream: xoshiro256++ seeded through splitmix64, plus the few ways to
// turn its bits into decisions that the simulator needs.
class Rng {
  public:
    constexpr explicit Rng(std::uint64_t seed) noexcept
        : seed_(seed), engine_(Xoshiro256PlusPlus::from_seed(seed)) {}

    // The seed this stream was built from; a derived stream reports its own derived seed.
    constexpr std::uint64_t seed() const noexcept { return seed_; }

    constexpr std::uint64_t next_u64() noexcept { return engine_.next(); }

    // Uniform in [0, bound), bound > 0. Lemire's multiply-shift with rejection ("Fast Random
    // Integer Generation in an Interval", 2019): take the high word of x * bound, and reject the
    // few x whose low word falls in the biased sliver, so every value is exactly equally likely.
    constexpr std::uint64_t below(std::uint64_t bound) {
        if (bound == 0) {
            throw std::invalid_argument("Rng::below: bound must be positive");
        }
        auto [high, low] = mul_wide(next_u64(), bound);
        if (low < bound) {
            // 2^64 mod bound, computed without 128-bit arithmetic.
            const std::uint64_t threshold = (0 - bound) % bound;
            while (low < threshold) {
                std::tie(high, low) = mul_wide(next_u64(), bound);
            }
        }
        CKPT_ASSERT(high < bound);
        return high;
    }

    // Uniform in [lo, hi], both inclusive, for any integer type. The arithmetic runs in uint64,
    // where the span of even the widest signed range fits, and converts back modulo 2^64.
    template <std::integral T>
    constexpr T uniform(T lo, T hi) {
        if (hi < lo) {
            throw std::invalid_argument("Rng::uniform: empty range (hi < lo)");
        }
        const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
        const std::uint64_t offset = span == UINT64_MAX ? next_u64() : below(span + 1);
        return static_cast<T>(static_cast<std::uint64_t>(lo) + offset);
    }

    // True with probability numerator / denominator exactly (a rational, not a double, so the
    // same seed draws the same coin everywhere). numerator >= denominator is always true.
    constexpr bool chance(std::uint64_t numerator, std::uint64_t denominator) {
        if (denominator == 0) {
            throw std::invalid_argument("Rng::chance: denominator must be positive");
        }
        return below(denominator) < numerator;
    }

    // Uniform in [0, 1) on the grid of multiples of 2^-53: the top 53 bits fill a double's
    // mantissa exactly, so no rounding can produce 1.0.
    constexpr double unit() noexcept { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

    // A uniformly chosen element of a non-empty random-access range (vector, span, array).
    template <std::ranges::random_access_range R>
    constexpr decltype(auto) pick(R&& range) {
        const auto size = static_cast<std::uint64_t>(std::ranges::size(range));
        if (size == 0) {
            throw std::invalid_argument("Rng::pick: empty range");
        }
        return *(std::ranges::begin(range) + static_cast<std::ranges::range_difference_t<R>>(below(size)));
    }

    // Fisher-Yates, written out because std::shuffle's use of the generator is unspecified.
    template <std::ranges::random_access_range R>
    constexpr void shuffle(R&& range) {
        const auto size = static_cast<std::uint64_t>(std::ranges::size(range));
        auto first = std::ranges::begin(range);
        using Diff = std::ranges::range_difference_t<R>;
        for (std::uint64_t i = size; i > 1; --i) {
            const std::uint64_t j = below(i);
            std::ranges::iter_swap(first + static_cast<Diff>(i - 1), first + static_cast<Diff>(j));
        }
    }

    // An independent stream for a component ("faults", "scheduler") or an index (a rank). It
    // depends only on this stream's seed and the id, never on how much has been drawn, so adding
    // a draw to one component cannot shift the randomness of another: runs stay comparable
    // across small code changes, and a rank's stream does not depend on the scheduling order.
    constexpr Rng derive(std::string_view stream_id) const noexcept {
        return derive_from_key(fnv1a64(stream_id));
    }
    constexpr Rng derive(std::uint64_t stream_index) const noexcept {
        // Offset so that index k and the string whose FNV hash happens to be k stay apart.
        return derive_from_key(mix64(stream_index ^ 0x6a09e667f3bcc909ULL));
    }

  private:
    constexpr Rng derive_from_key(std::uint64_t key) const noexcept {
        // mix64 is a bijection, so distinct keys give distinct child seeds for a given parent.
        return Rng(mix64(seed_ ^ mix64(key + kGoldenGamma)));
    }

    std::uint64_t seed_;
    Xoshiro256PlusPlus engine_;
};

}  // namespace ckpt::sim
