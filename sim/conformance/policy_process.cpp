// One child, three pipes, one poll loop. Every path out of the loop reaps the child, so no
// zombie outlives a check; a kill goes to the child's whole process group, so a wrapper
// script's own children die with it.
#include "sim/conformance/policy_process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "sim/process/child_process.hpp"

namespace ckpt::sim::conformance {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kStderrKept = 2048;
constexpr std::size_t kMaxAnswerBytes = std::size_t{1} << 20;

// The child: stdin, stdout and stderr are the pipes.
int spawn(const std::vector<std::string>& argv, PipePair& in, PipePair& out, PipePair& err, pid_t& pid) {
    return spawn_child({argv, {{0, in.read.fd}, {1, out.write.fd}, {2, err.write.fd}}, {}}, pid);
}

// The poll loop's view of the child.
class Session {
  public:
    Session(std::string input, std::size_t expected_lines, bool (*stop_early)(const std::string&))
        : input_(std::move(input)), expected_lines_(expected_lines), stop_early_(stop_early) {}

    // Returns true when the child must be killed now (a bad or surplus answer).
    bool pump(Fd& in, Fd& out, Fd& err, int wait_ms) {
        pollfd fds[3] = {{in.fd, POLLOUT, 0}, {out.fd, POLLIN, 0}, {err.fd, POLLIN, 0}};
        if (::poll(fds, 3, wait_ms) < 0) {
            return errno != EINTR;
        }
        if (in.open() && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
            write_some(in);
        }
        if (out.open() && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && read_answers(out)) {
            return true;
        }
        if (err.open() && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            read_stderr(err);
        }
        return false;
    }
    void finish(Transcript& transcript) {
        if (!partial_.empty()) {
            transcript.answers.push_back(std::move(partial_));  // a last line without its newline
        }
    }
    Transcript transcript;

  private:
    void write_some(Fd& in) {
        while (written_ < input_.size()) {
            const auto n = ::write(in.fd, input_.data() + written_, input_.size() - written_);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR) {
                    return;
                }
                break;  // EPIPE: the child closed its stdin; what it answered still counts
            }
            written_ += static_cast<std::size_t>(n);
        }
        in.reset();  // all written (or refused): the child sees the end of its input
    }
    bool read_answers(Fd& out) {
        char buffer[4096];
        const auto n = ::read(out.fd, buffer, sizeof buffer);
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                out.reset();
            }
            return false;
        }
        for (const char c : std::string_view(buffer, static_cast<std::size_t>(n))) {
            if (c != '\n') {
                partial_.push_back(c);
                if (partial_.size() > kMaxAnswerBytes) {
                    return true;
                }
                continue;
            }
            transcript.answers.push_back(std::move(partial_));
            partial_.clear();
            if (transcript.answers.size() > expected_lines_ || stop_early_(transcript.answers.back())) {
                return true;
            }
        }
        return false;
    }
    void read_stderr(Fd& err) {
        char buffer[4096];
        const auto n = ::read(err.fd, buffer, sizeof buffer);
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                err.reset();
            }
            return;
        }
        const auto room = kStderrKept - std::min(kStderrKept, transcript.stderr_head.size());
        transcript.stderr_head.append(buffer, std::min(room, static_cast<std::size_t>(n)));
    }

    std::string input_;
    std::size_t written_ = 0;
    std::size_t expected_lines_;
    bool (*stop_early_)(const std::string&);
    std::string partial_;
};

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

// After the child closed its pipes: wait for its exit until the deadline, then kill it.
bool reap_by(pid_t pid, Clock::time_point deadline, int& status) {
    while (Clock::now() < deadline) {
        const auto done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    kill_and_reap(pid, status);
    return false;
}

}  // namespace

Transcript run_policy_process(const std::vector<std::string>& argv,
                              const std::vector<std::string>& input_lines, std::chrono::milliseconds timeout,
                              bool (*stop_early)(const std::string& line)) {
    static const bool sigpipe_ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;  // EPIPE instead
    (void)sigpipe_ignored;
    auto in = make_pipe();
    auto out = make_pipe();
    auto err = make_pipe();
    pid_t pid = -1;
    if (const int failed = spawn(argv, in, out, err, pid); failed != 0) {
        return {{}, Transcript::Ending::not_started, failed, {}};
    }
    in.read.reset();
    out.write.reset();
    err.write.reset();
    for (auto* fd : {&in.write, &out.read, &err.read}) {
        set_nonblocking(*fd);
    }
    std::string input;
    for (const auto& line : input_lines) {
        input += line + '\n';
    }
    Session session(std::move(input), input_lines.size(), stop_early);
    const auto deadline = Clock::now() + timeout;
    auto ending = Transcript::Ending::exited;
    int status = 0;
    while (out.read.open() || err.read.open()) {
        if (Clock::now() >= deadline) {
            ending = Transcript::Ending::timed_out;
            break;
        }
        if (session.pump(in.write, out.read, err.read, remaining_ms(deadline))) {
            ending = Transcript::Ending::stopped_early;
            break;
        }
    }
    if (ending != Transcript::Ending::exited) {
        kill_and_reap(pid, status);
    } else if (!reap_by(pid, deadline, status)) {
        ending = Transcript::Ending::timed_out;
    }
    session.finish(session.transcript);
    auto transcript = std::move(session.transcript);
    transcript.ending = ending;
    if (ending == Transcript::Ending::exited && WIFSIGNALED(status)) {
        transcript.ending = Transcript::Ending::signaled;
        transcript.status = WTERMSIG(status);
    } else {
        transcript.status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    }
    return transcript;
}

std::string describe_ending(const Transcript& transcript, std::chrono::milliseconds timeout) {
    switch (transcript.ending) {
        case Transcript::Ending::exited:
            return "exited with status " + std::to_string(transcript.status);
        case Transcript::Ending::signaled:
            return std::string("was killed by signal ") + std::to_string(transcript.status) + " (" +
                   ::strsignal(transcript.status) + ")";
        case Transcript::Ending::timed_out:
            return "did not finish within " + std::to_string(timeout.count()) +
                   " ms (--timeout); it was killed and reaped";
        case Transcript::Ending::stopped_early:
            return "answered with something that is not one JSON line per input; it was killed";
        case Transcript::Ending::not_started:
            return std::string("could not be started: ") + std::strerror(transcript.status);
    }
    return "ended";
}

}  // namespace ckpt::sim::conformance
