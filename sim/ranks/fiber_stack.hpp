// The stacks rank fibers run on: guarded Boost.Context stacks, pooled per thread, that record
// their bounds for the AddressSanitizer stack-switch annotations (no-ops without ASan). The
// scheduler must annotate every switch with these, in the pairs documented below. Depends on
// Boost.Context only.
#pragma once

#include <cstddef>

#include <boost/context/stack_context.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define CKPT_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CKPT_SIM_ASAN 1
#endif
#endif
#if defined(CKPT_SIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace ckpt::sim::fibers {

// AddressSanitizer tracks one stack per thread unless told about switches; without this, a throw on a rank's
// stack makes it report false overflows. The helpers themselves must not get a fake frame (with
// detect_stack_use_after_return) because they run while the thread's fake stack is being swapped.
struct StackBounds {
    const void* bottom = nullptr;
    std::size_t size = 0;
};

#if defined(CKPT_SIM_ASAN)
#define CKPT_SIM_NO_ASAN __attribute__((no_sanitize_address))
#else
#define CKPT_SIM_NO_ASAN
#endif

// Called just before switching to the stack `to`; `fake_stack` receives the leaving stack's fake
// stack (nullptr when the leaving stack ends for good).
CKPT_SIM_NO_ASAN inline void asan_start_switch([[maybe_unused]] void** fake_stack,
                                               [[maybe_unused]] StackBounds to) noexcept {
#if defined(CKPT_SIM_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
#endif
}

// Called first thing after a switch lands; `from`, when given, receives the bounds of the stack
// that was left.
CKPT_SIM_NO_ASAN inline void asan_finish_switch([[maybe_unused]] void* fake_stack,
                                                [[maybe_unused]] StackBounds* from) noexcept {
#if defined(CKPT_SIM_ASAN)
    if (from == nullptr) {
        __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    } else {
        __sanitizer_finish_switch_fiber(fake_stack, &from->bottom, &from->size);
    }
#endif
}

// A finished rank cannot drop its own fake stack as it leaves: Boost returns through several frames that
// still live on it before the final jump. So the rank leaves it saved, and the scheduler adopts and deletes
// it here, without any real switch, once the rank's stack is gone.
CKPT_SIM_NO_ASAN inline void asan_release_fake_stack([[maybe_unused]] void*& fake_stack,
                                                     [[maybe_unused]] StackBounds main) noexcept {
#if defined(CKPT_SIM_ASAN)
    if (fake_stack == nullptr) {
        return;
    }
    void* main_fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&main_fake_stack, main.bottom, main.size);
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    __sanitizer_start_switch_fiber(nullptr, main.bottom, main.size);
    __sanitizer_finish_switch_fiber(main_fake_stack, nullptr, nullptr);
    fake_stack = nullptr;
#endif
}

// A Boost.Context stack allocator handing out this thread's pooled guarded stacks, which also
// tells us where each stack is, as the AddressSanitizer annotations need.
class RecordingStack {
  public:
    RecordingStack(std::size_t size, StackBounds* where) : size_(size), where_(where) {}

    boost::context::stack_context allocate();
    void deallocate(boost::context::stack_context& stack) noexcept;

  private:
    std::size_t size_;
    StackBounds* where_;
};

}  // namespace ckpt::sim::fibers
