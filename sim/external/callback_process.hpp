// One external callback process: started with the protocol socket as descriptor 3, stdin from
// /dev/null and stdout/stderr into a pipe whose tail is kept for reports; JSON Lines in both
// directions under a per-message wall-clock deadline and a 16 MiB line cap. Every failure of
// the channel (no start, early exit, garbage, an oversized line, silence past the deadline) is
// a HarnessError naming it, with the last exchanges and the stderr tail. The destructor kills
// the process group and reaps it, so nothing outlives the incarnation that started it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <sys/types.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/external/callback_spec.hpp"
#include "sim/external/line_reader.hpp"
#include "sim/process/child_process.hpp"

namespace ckpt::sim {

// Who the process is: what its environment tells it (docs/callback-protocol.md).
struct CallbackIdentity {
    int rank = 0;
    int world_size = 1;
    int incarnation = 1;       // 1 for the job's first run
    std::uint64_t stream = 0;  // seeds the process's randomness
};

// The environment a callback process gets on top of ckptsim's (docs/callback-protocol.md); with
// no identity, the zygote's, which learns each child's identity per spawn.
std::vector<std::string> callback_environment(const CallbackSpec& spec, const CallbackIdentity* identity);

// A new process's descriptors: the channel (ours, and theirs for its descriptor 3) and its output
// pipe (we read; it writes on 1 and 2). Throws HarnessError.
struct ChildChannel {
    Fd ours;
    Fd theirs;
    Fd output;         // our read end, non-blocking
    Fd output_theirs;  // its write end
};
ChildChannel make_child_channel();

// Starts `spec.argv` cold with `channel`'s ends on 3, 1 and 2 (stdin /dev/null) and `environment`
// on top of ours, then closes its ends here, so its exit is an end of file. Throws HarnessError.
pid_t start_with_channel(const CallbackSpec& spec, ChildChannel& channel,
                         std::vector<std::string> environment);

class CallbackProcess {
  public:
    static constexpr std::size_t kMaxLineBytes = kMaxProtocolLineBytes;

    // Starts the process and reads its `ready` line. Throws HarnessError.
    CallbackProcess(const CallbackSpec& spec, const CallbackIdentity& identity);
    ~CallbackProcess();
    CallbackProcess(const CallbackProcess&) = delete;
    CallbackProcess& operator=(const CallbackProcess&) = delete;

    void send(const nlohmann::json& message);
    nlohmann::json receive();
    // A normal end: {"t":"shutdown"}, then up to 5 s for the exit, then the kill. Never throws.
    void shutdown() noexcept;
    // A crash: SIGKILL to the group, no chance to run anything. Never throws.
    void kill() noexcept;

    const nlohmann::json& ready() const noexcept { return ready_; }
    // "rank R, incarnation I: <what>", then the last exchanges and the stderr tail.
    [[noreturn]] void fail(const std::string& what);

  private:
    void remember(char direction, std::string_view line);
    void drain_output() noexcept;
    std::string describe_exit();

    CallbackSpec spec_;
    CallbackIdentity identity_;
    pid_t pid_ = -1;
    bool forked_by_zygote_ = false;  // not our child: killed by its group, reaped by the zygote
    bool reaped_ = false;
    int status_ = 0;
    Fd channel_;
    Fd output_;
    LineReader reader_{kMaxLineBytes};
    std::string output_tail_;  // the last bytes of stdout/stderr
    std::deque<std::string> recent_;
    nlohmann::json ready_;
};

}  // namespace ckpt::sim
