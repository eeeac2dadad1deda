// Ctrl-C for long commands: the first SIGINT sets a flag the command polls, so it can stop drawing
// new work and still print what it found (exit 130, as shells expect after SIGINT); a second
// SIGINT falls back to the default action for a user who really wants out. POSIX only.
#pragma once

#include <atomic>

namespace ckpt::cli {

inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, the shell convention

// Installs the handler (idempotent) and returns the flag it sets.
const std::atomic<bool>& install_interrupt_flag();

}  // namespace ckpt::cli
