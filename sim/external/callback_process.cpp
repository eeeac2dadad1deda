// A blocking exchange over a non-blocking socket: the simulator thread waits in poll() for the
// one process that is computing, draining its output pipe meanwhile so a chatty callback never
// blocks on a full pipe.
#include "sim/external/callback_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "policy/base/untrusted_json.hpp"
#include "sim/base/harness_error.hpp"
#include "sim/external/callback_zygote.hpp"

namespace ckpt::sim {

namespace {

using Clock = LineReader::Clock;

constexpr std::size_t kOutputKept = 4096;
constexpr std::size_t kExchangesKept = 16;
constexpr std::size_t kExchangeShown = 400;
constexpr int kChannelFd = 3;

}  // namespace

std::vector<std::string> callback_environment(const CallbackSpec& spec, const CallbackIdentity* id) {
    std::vector<std::string> env = {
        "CKPTSIM_FD=" + std::to_string(kChannelFd),
        "CKPTSIM_PROTOCOL=" + std::to_string(kCallbackProtocolVersion),
        "CKPTSIM_VROOT=/ckptsim-vfs",
        "PYTHONHASHSEED=0",
        "TZ=UTC",
        "LANG=C.UTF-8",
        "PYTHONDONTWRITEBYTECODE=1",
    };
    if (id != nullptr) {
        env.push_back("CKPTSIM_RANK=" + std::to_string(id->rank));
        env.push_back("CKPTSIM_WORLD_SIZE=" + std::to_string(id->world_size));
        env.push_back("CKPTSIM_INCARNATION=" + std::to_string(id->incarnation));
        env.push_back("CKPTSIM_STREAM=" + std::to_string(id->stream));
    }
    if (!spec.shim_path.empty()) {
        const char* existing = std::getenv("PYTHONPATH");
        env.push_back("PYTHONPATH=" + spec.shim_path +
                      (existing != nullptr && *existing != '\0' ? ":" + std::string(existing) : ""));
    }
    return env;
}

ChildChannel make_child_channel() {
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
        throw HarnessError(std::string("socketpair: ") + std::strerror(errno));
    }
    auto output = make_pipe();
    set_nonblocking(output.read);
    return {Fd(sockets[0]), Fd(sockets[1]), std::move(output.read), std::move(output.write)};
}

pid_t start_with_channel(const CallbackSpec& spec, ChildChannel& channel,
                         std::vector<std::string> environment) {
    Fd null_input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const ChildSpec child{spec.argv,
                          {{0, null_input.fd},
                           {1, channel.output_theirs.fd},
                           {2, channel.output_theirs.fd},
                           {kChannelFd, channel.theirs.fd}},
                          std::move(environment)};
    pid_t pid = -1;
    if (const int failed = spawn_child(child, pid); failed != 0) {
        throw HarnessError("the callback command '" + spec.argv.front() +
                           "' could not be started: " + std::strerror(failed));
    }
    channel.theirs.reset();
    channel.output_theirs.reset();
    return pid;
}

CallbackProcess::CallbackProcess(const CallbackSpec& spec, const CallbackIdentity& identity)
    : spec_(spec), identity_(identity) {
    auto channel = make_child_channel();
    if (spec.zygote) {
        pid_ = zygote_for(spec).spawn(identity, channel.theirs.fd, channel.output_theirs.fd);
        forked_by_zygote_ = true;
        // Only the child holds its ends now, so its exit is an end of file here.
        channel.theirs.reset();
        channel.output_theirs.reset();
    } else {
        pid_ = start_with_channel(spec, channel, callback_environment(spec, &identity));
    }
    channel_ = std::move(channel.ours);
    output_ = std::move(channel.output);
    set_nonblocking(channel_);
    ready_ = receive();
    if (ready_.value("t", "") == "harness_error") {
        fail("failed before it was ready: " + ready_.value("message", std::string("(no message)")));
    }
    if (ready_.value("t", "") != "ready" || ready_.value("protocol", 0) != kCallbackProtocolVersion) {
        fail("the first line is not {\"t\":\"ready\",\"protocol\":" +
             std::to_string(kCallbackProtocolVersion) + ",...}");
    }
    if (!ready_.contains("class") || !ready_["class"].is_string()) {
        fail("the ready line names no callback class");
    }
}

CallbackProcess::~CallbackProcess() {
    kill();
}

void CallbackProcess::kill() noexcept {
    if (pid_ > 0 && !reaped_) {
        if (forked_by_zygote_) {
            ::kill(-pid_, SIGKILL);
        } else {
            kill_and_reap(pid_, status_);
        }
        reaped_ = true;
    }
}

void CallbackProcess::shutdown() noexcept {
    if (pid_ <= 0 || reaped_) {
        return;
    }
    static constexpr std::string_view kShutdown = "{\"t\":\"shutdown\"}\n";
    const bool sent = ::send(channel_.fd, kShutdown.data(), kShutdown.size(), MSG_NOSIGNAL) ==
                      static_cast<ssize_t>(kShutdown.size());
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (sent && Clock::now() < deadline) {
        drain_output();
        if (forked_by_zygote_) {
            // Not our child: its exit is the end of its channel.
            pollfd fds[1] = {{channel_.fd, POLLIN, 0}};
            ::poll(fds, 1, 100);
            char buffer[256];
            const auto n = ::recv(channel_.fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (n == 0) {
                reaped_ = true;
                return;
            }
            if (n < 0 && errno != EAGAIN && errno != EINTR) {
                break;
            }
            continue;
        }
        const auto done = ::waitpid(pid_, &status_, WNOHANG);
        if (done == pid_ || (done < 0 && errno != EINTR)) {
            reaped_ = true;
            ::kill(-pid_, SIGKILL);  // anything it left behind in its group
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    kill();
}

void CallbackProcess::send(const nlohmann::json& message) {
    auto line = message.dump(-1, ' ', true);
    remember('>', line);
    line.push_back('\n');
    const auto deadline = Clock::now() + spec_.timeout;
    std::size_t sent = 0;
    while (sent < line.size()) {
        const auto n = ::send(channel_.fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            fail(describe_exit());
        }
        if (Clock::now() >= deadline) {
            fail("did not read its input within " + std::to_string(spec_.timeout.count()) +
                 " ms (--callback-timeout)");
        }
        pollfd fds[2] = {{channel_.fd, POLLOUT, 0}, {output_.fd, POLLIN, 0}};
        ::poll(fds, output_.open() ? 2 : 1, poll_wait_ms(deadline));
        drain_output();
    }
}

nlohmann::json CallbackProcess::receive() {
    LineFailure failure{};
    auto line = reader_.next(
        channel_.fd, output_, [this] { drain_output(); }, Clock::now() + spec_.timeout, &failure);
    if (!line) {
        fail(failure == LineFailure::closed ? describe_exit() : reader_.describe(failure, spec_.timeout));
    }
    remember('<', *line);
    try {
        auto message = parse_untrusted_json(*line, "a line from the callback process");
        if (!message.is_object() || !message.contains("t") || !message["t"].is_string()) {
            fail("sent a line that is not an object with a string \"t\"");
        }
        return message;
    } catch (const MalformedJson& error) {
        fail(std::string("sent a malformed line: ") + error.what());
    }
}

void CallbackProcess::drain_output() noexcept {
    while (output_.open()) {
        char buffer[4096];
        const auto n = ::read(output_.fd, buffer, sizeof buffer);
        if (n > 0) {
            output_tail_.append(buffer, static_cast<std::size_t>(n));
            if (output_tail_.size() > 2 * kOutputKept) {
                output_tail_.erase(0, output_tail_.size() - kOutputKept);
            }
        } else {
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                output_.reset();
            }
            return;
        }
    }
}

std::string CallbackProcess::describe_exit() {
    drain_output();
    kill();  // reaps it: an exit already happened, or it is stuck with a closed channel
    if (forked_by_zygote_) {
        return "closed the channel (it exited or was killed)";
    }
    if (WIFEXITED(status_)) {
        return "closed the channel and exited with status " + std::to_string(WEXITSTATUS(status_));
    }
    if (WIFSIGNALED(status_) && WTERMSIG(status_) != SIGKILL) {
        return std::string("was killed by signal ") + std::to_string(WTERMSIG(status_)) + " (" +
               ::strsignal(WTERMSIG(status_)) + ")";
    }
    return "closed the channel";
}

void CallbackProcess::remember(char direction, std::string_view line) {
    std::string shown(1, direction);
    shown += ' ';
    shown += line.substr(0, kExchangeShown);
    if (line.size() > kExchangeShown) {
        shown += "... (" + std::to_string(line.size()) + " bytes)";
    }
    recent_.push_back(std::move(shown));
    if (recent_.size() > kExchangesKept) {
        recent_.pop_front();
    }
}

void CallbackProcess::fail(const std::string& what) {
    drain_output();
    std::string message = "external callback (rank " + std::to_string(identity_.rank) + ", incarnation " +
                          std::to_string(identity_.incarnation) + ") " + what;
    message += "\n  last exchanges (> to the process, < from it):";
    for (const auto& line : recent_) {
        message += "\n    " + line;
    }
    if (!output_tail_.empty()) {
        const auto tail = output_tail_.size() > kOutputKept
                              ? output_tail_.substr(output_tail_.size() - kOutputKept)
                              : output_tail_;
        message += "\n  its stdout/stderr ends with:\n" + tail;
    }
    kill();
    throw HarnessError(message);
}

}  // namespace ckpt::sim
