// A warm fork server for external callbacks: one `--callback-command` process started with
// CKPTSIM_ZYGOTE=1, which sets up the shim and imports the user's module once, then forks a
// fresh callback process for every (incarnation, rank) on request. A request is one line on the
// zygote's control socket carrying the new process's channel and output descriptors
// (SCM_RIGHTS); the answer names its pid. The zygote reaps its own children; ckptsim kills a
// child by its process group. One zygote per thread and command (zygote_for), so explore's
// workers never share one; it ends when its thread does. Failures are HarnessError.
#pragma once

#include <string>
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "sim/external/callback_spec.hpp"
#include "sim/external/line_reader.hpp"
#include "sim/process/child_process.hpp"

namespace ckpt::sim {

struct CallbackIdentity;

class CallbackZygote {
  public:
    explicit CallbackZygote(const CallbackSpec& spec);
    ~CallbackZygote();
    CallbackZygote(const CallbackZygote&) = delete;
    CallbackZygote& operator=(const CallbackZygote&) = delete;

    // Forks a callback process for `identity` whose descriptor 3 is `channel` and whose stdout and
    // stderr are `output`; returns its pid (also its process group).
    pid_t spawn(const CallbackIdentity& identity, int channel, int output);

  private:
    nlohmann::json read_line();
    void discard_output() noexcept;
    [[noreturn]] void fail(const std::string& what);

    CallbackSpec spec_;
    pid_t pid_ = -1;
    Fd control_;
    Fd output_;
    LineReader reader_{kMaxProtocolLineBytes};
};

// This thread's zygote for `spec`, started on first use (and again after one failed).
CallbackZygote& zygote_for(const CallbackSpec& spec);
// Forgets this thread's zygote for `spec` (it failed): the next zygote_for starts a new one.
void forget_zygote(const CallbackSpec& spec) noexcept;

}  // namespace ckpt::sim
