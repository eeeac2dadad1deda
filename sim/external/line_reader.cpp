// One recv of up to 64 KiB per readable poll; the search for a newline resumes where the last
// one stopped, so a long line costs linear time.
#include "sim/external/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>

namespace ckpt::sim {

int poll_wait_ms(LineReader::Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - LineReader::Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1000));
}

std::optional<std::string> LineReader::next(int socket, const Fd& output,
                                            const std::function<void()>& drain_output,
                                            Clock::time_point deadline, LineFailure* failure) {
    std::size_t scanned = 0;
    while (true) {
        if (const auto end = pending_.find('\n', scanned); end != std::string::npos) {
            std::string line = pending_.substr(0, end);
            pending_.erase(0, end + 1);
            return line;
        }
        scanned = pending_.size();
        if (pending_.size() > max_line_bytes_) {
            *failure = LineFailure::too_long;
            return std::nullopt;
        }
        if (Clock::now() >= deadline) {
            *failure = LineFailure::deadline;
            return std::nullopt;
        }
        pollfd fds[2] = {{socket, POLLIN, 0}, {output.fd, POLLIN, 0}};
        if (::poll(fds, output.open() ? 2 : 1, poll_wait_ms(deadline)) < 0 && errno != EINTR) {
            poll_errno_ = errno;
            *failure = LineFailure::poll;
            return std::nullopt;
        }
        if (output.open() && fds[1].revents != 0) {
            drain_output();
        }
        if (fds[0].revents == 0) {
            continue;  // only output, or the deadline's tick
        }
        char buffer[65536];
        const auto n = ::recv(socket, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n > 0) {
            pending_.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            *failure = LineFailure::closed;
            return std::nullopt;
        }
    }
}

std::string LineReader::describe(LineFailure failure, std::chrono::milliseconds timeout) const {
    switch (failure) {
        case LineFailure::too_long:
            return "sent a line longer than " + std::to_string(max_line_bytes_ >> 20) + " MiB";
        case LineFailure::deadline:
            return "sent no answer within " + std::to_string(timeout.count()) + " ms (--callback-timeout)";
        case LineFailure::poll:
            return std::string("poll: ") + std::strerror(poll_errno_);
        case LineFailure::closed:
            break;
    }
    return "closed its channel";
}

}  // namespace ckpt::sim
