// The SIGINT flag: set from the handler, which may only touch lock-free atomics.
#include "sim/cli/interrupt.hpp"

#include <csignal>

namespace ckpt::cli {
namespace {

std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only use lock-free atomics");

extern "C" void on_interrupt(int /*signal*/) {
    interrupted.store(true);
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

}  // namespace

const std::atomic<bool>& install_interrupt_flag() {
    std::signal(SIGINT, on_interrupt);
    return interrupted;
}

}  // namespace ckpt::cli
