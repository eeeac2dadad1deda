// What runs an external trigger callback: the command's words (no shell), the wall-clock limit
// on each answer, and where the shim package lives (put first on the child's PYTHONPATH).
// split_command_words throws std::invalid_argument on an unbalanced quote or an empty command.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::sim {

struct CallbackSpec {
    std::vector<std::string> argv;
    std::chrono::milliseconds timeout{30'000};
    std::string shim_path;  // empty: the child's PYTHONPATH is left as it is
    // Fork each process from a warm zygote (callback_zygote.hpp) rather than start it cold. Off
    // for a module that reads its rank, the time or the environment at import time.
    bool zygote = true;
    // The stateful-callback machinery the callback runs under: the port's (a changed argument
    // refused, state_key identity; the default) or Transformers' own, silent about a changed
    // argument (sim/trainer/transformers_callback_state.hpp), as in a stock Trainer.
    bool transformers_restore = false;
    // How many on_step_end calls the process may run ahead of the trainer (protocol 2's
    // `ahead`): the trainer's plain steps, each checked against the call the trainer really
    // makes. 0 sends every call alone; the verdicts and the trace are the same either way.
    std::size_t lookahead = 64;
};

// The protocol version of docs/callback-protocol.md this build speaks (CKPTSIM_PROTOCOL, the
// `ready` and `zygote_ready` lines).
inline constexpr int kCallbackProtocolVersion = 2;

// Splits a command line into words as a POSIX shell would for plain words and quotes: spaces
// separate words; '…' keeps everything literally; "…" and a backslash outside quotes escape one
// character. No expansion of any kind.
std::vector<std::string> split_command_words(std::string_view command);

// The shim folder this build knows (the source tree's shim/python), or CKPTSIM_SHIM_PATH when set.
std::string default_shim_path();

}  // namespace ckpt::sim
