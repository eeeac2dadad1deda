// CKPT_ASSERT(cond): a check of the simulator's own invariants, on in every build type, that
// prints the condition and where it failed and aborts. A broken invariant means the simulation
// can no longer be trusted, so it must never be compiled out or caught. Not for user input:
// scenario files and CLI arguments get errors that name the bad value.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace ckpt::sim::assert_detail {

[[noreturn]] inline void fail(const char* condition, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: simulator invariant violated: %s\n", file, line, condition);
    std::fflush(stderr);
    std::abort();
}

}  // namespace ckpt::sim::assert_detail

#define CKPT_ASSERT(cond) \
    ((cond) ? static_cast<void>(0) : ::ckpt::sim::assert_detail::fail(#cond, __FILE__, __LINE__))
