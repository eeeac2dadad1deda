// Reading newline-terminated lines from a socket before a wall-clock deadline, while the
// other end's stdout and stderr pipe is drained so a chatty child never blocks on a full pipe.
// Shared by the callback process's channel and the zygote's control socket. Never throws: a
// line, or the reason none came (its owner words the harness error).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "sim/process/child_process.hpp"

namespace ckpt::sim {

// The protocol's cap on one line (docs/callback-protocol.md).
inline constexpr std::size_t kMaxProtocolLineBytes = std::size_t{16} << 20;

enum class LineFailure {
    too_long,  // more than the cap without a newline
    deadline,  // nothing complete before the deadline
    closed,    // end of file, or a read error other than EAGAIN/EINTR
    poll,      // poll itself failed (errno kept)
};

class LineReader {
  public:
    using Clock = std::chrono::steady_clock;

    explicit LineReader(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

    // The next line without its newline, or nullopt with *failure set. `output` is polled
    // beside `socket` while it is open, and `drain_output` called when it is readable (it may
    // close it).
    std::optional<std::string> next(int socket, const Fd& output, const std::function<void()>& drain_output,
                                    Clock::time_point deadline, LineFailure* failure);

    // "sent a line longer than 16 MiB", "sent no answer within 5000 ms (--callback-timeout)",
    // "poll: <strerror>"; for `closed` the owner says how the other end went.
    std::string describe(LineFailure failure, std::chrono::milliseconds timeout) const;

  private:
    std::size_t max_line_bytes_;
    std::string pending_;  // bytes read past the last complete line
    int poll_errno_ = 0;
};

// Milliseconds left before `deadline`, for poll: 0 once it passed, at most a second.
int poll_wait_ms(LineReader::Clock::time_point deadline);

}  // namespace ckpt::sim
