// CKPT_ASSERT: a simulator invariant that must hold whatever the scenario. A failure is a bug
// in the simulator, never in its input, so it prints where it failed and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace ckpt::sim {

[[noreturn]] inline void assert_failed(const char* condition, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: simulator invariant failed: %s\n", file, line, condition);
    std::abort();
}

}  // namespace ckpt::sim

#define CKPT_ASSERT(cond) ((cond) ? void(0) : ::ckpt::sim::assert_failed(#cond, __FILE__, __LINE__))
