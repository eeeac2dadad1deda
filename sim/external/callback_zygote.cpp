// The zygote's control channel: a line plus two descriptors out, a line back, under the same
// per-message deadline as the callback protocol.
#include "sim/external/callback_zygote.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/base/untrusted_json.hpp"
#include "sim/base/harness_error.hpp"
#include "sim/external/callback_process.hpp"

namespace ckpt::sim {

namespace {

using Clock = LineReader::Clock;

std::string key_of(const CallbackSpec& spec) {
    std::string key;
    for (const auto& word : spec.argv) {
        key += word;
        key.push_back('\0');
    }
    return key + spec.shim_path;
}

// One line and two descriptors in a single sendmsg, so they arrive together.
bool send_with_descriptors(int socket, const std::string& line, int first, int second) {
    iovec data{const_cast<char*>(line.data()), line.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(2 * sizeof(int));
    const int descriptors[2] = {first, second};
    std::memcpy(CMSG_DATA(header), descriptors, sizeof descriptors);
    ssize_t sent = 0;
    do {
        sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == static_cast<ssize_t>(line.size());
}

}  // namespace

CallbackZygote::CallbackZygote(const CallbackSpec& spec) : spec_(spec) {
    auto channel = make_child_channel();
    auto environment = callback_environment(spec, nullptr);
    environment.push_back("CKPTSIM_ZYGOTE=1");
    pid_ = start_with_channel(spec, channel, std::move(environment));
    control_ = std::move(channel.ours);
    output_ = std::move(channel.output);
    const auto ready = read_line();
    if (ready.value("t", "") == "harness_error") {
        fail("failed before it was ready: " + ready.value("message", std::string("(no message)")) + "\n" +
             ready.value("traceback", std::string()));
    }
    if (ready.value("t", "") != "zygote_ready" || ready.value("protocol", 0) != kCallbackProtocolVersion) {
        fail("answered CKPTSIM_ZYGOTE=1 with " + ready.dump() +
             ", not {\"t\":\"zygote_ready\",\"protocol\":" + std::to_string(kCallbackProtocolVersion) + "}");
    }
}

CallbackZygote::~CallbackZygote() {
    control_.reset();  // end of file: the zygote exits; its children are killed by their owners
    if (pid_ > 0) {
        int status = 0;
        kill_and_reap(pid_, status);
    }
}

pid_t CallbackZygote::spawn(const CallbackIdentity& identity, int channel, int output) {
    const nlohmann::json request = {{"t", "spawn"},
                                    {"rank", identity.rank},
                                    {"world_size", identity.world_size},
                                    {"incarnation", identity.incarnation},
                                    {"stream", identity.stream}};
    if (!send_with_descriptors(control_.fd, request.dump() + "\n", channel, output)) {
        fail(std::string("refused a spawn request: ") + std::strerror(errno));
    }
    const auto answer = read_line();
    const auto pid = answer.value("pid", 0);
    if (answer.value("t", "") != "spawned" || pid <= 0) {
        fail("answered a spawn request with " + answer.dump());
    }
    return static_cast<pid_t>(pid);
}

nlohmann::json CallbackZygote::read_line() {
    LineFailure failure{};
    const auto line = reader_.next(
        control_.fd, output_, [this] { discard_output(); }, Clock::now() + spec_.timeout, &failure);
    if (!line) {
        fail(failure == LineFailure::closed ? "closed its control socket"
                                            : reader_.describe(failure, spec_.timeout));
    }
    try {
        return parse_untrusted_json(*line, "a line from the callback zygote");
    } catch (const MalformedJson& error) {
        fail(std::string("sent a malformed line: ") + error.what());
    }
}

// The zygote's own output is not kept: each child reports through its own pipe.
void CallbackZygote::discard_output() noexcept {
    char drain[4096];
    while (output_.open()) {
        const auto n = ::read(output_.fd, drain, sizeof drain);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            output_.reset();
        }
        if (n <= 0) {
            return;
        }
    }
}

void CallbackZygote::fail(const std::string& what) {
    const std::string message = "external callback zygote " + what;
    if (pid_ > 0) {
        int status = 0;
        kill_and_reap(pid_, status);
        pid_ = -1;
    }
    const auto spec = spec_;
    forget_zygote(spec);  // may destroy this object
    throw HarnessError(message);
}

namespace {

thread_local std::map<std::string, std::unique_ptr<CallbackZygote>> zygotes;

}  // namespace

CallbackZygote& zygote_for(const CallbackSpec& spec) {
    auto& slot = zygotes[key_of(spec)];
    if (!slot) {
        auto started = std::make_unique<CallbackZygote>(spec);
        slot = std::move(started);
    }
    return *slot;
}

void forget_zygote(const CallbackSpec& spec) noexcept {
    const auto found = zygotes.find(key_of(spec));
    if (found != zygotes.end()) {
        auto doomed = std::move(found->second);
        zygotes.erase(found);
        doomed.reset();
    }
}

}  // namespace ckpt::sim
