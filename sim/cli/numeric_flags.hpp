#pragma once

// Validators for numeric flags that CLI11's own conversions accept too loosely: strtoull takes
// "-1" and wraps it, and out-of-range or fractional text is rounded or saturated. Each validator
// accepts only plain decimal text inside its bounds, so a bad value is a parse error naming the
// flag (exit status 2) and the value the command runs with is exactly the one typed.

#include <cstdint>

#include <CLI/CLI.hpp>

namespace ckpt::cli {

// Decimal digits only (no sign, no exponent, no fraction), within [lo, hi].
CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi);
// An optional '-' then decimal digits, within [lo, hi].
CLI::Validator signed_in(std::int64_t lo, std::int64_t hi);
// A finite number greater than zero and at most `hi` (no nan or inf).
CLI::Validator finite_positive(double hi);
// A finite number of at least zero and at most `hi` (no nan or inf).
CLI::Validator finite_non_negative(double hi);

// Worker threads: more than this is a typo, not a machine.
inline constexpr std::uint64_t kMaxJobs = 1024;

}  // namespace ckpt::cli
