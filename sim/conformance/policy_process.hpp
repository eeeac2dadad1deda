// Runs another policy implementation as a subprocess: posix_spawn in its own process group,
// every input line written to its stdin (then closed), its stdout read line by line under poll
// with a deadline. A hang is killed (the whole group) and reaped; a write to a child that
// closed its stdin is an EPIPE, never a SIGPIPE here.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace ckpt::sim::conformance {

struct Transcript {
    enum class Ending {
        exited,         // closed its stdout and exited; `status` is its exit status
        signaled,       // killed by signal `status`
        timed_out,      // still running at the deadline: killed and reaped
        stopped_early,  // answered a line that is not JSON, or more lines than inputs: killed
        not_started,    // posix_spawn failed; `status` is the errno
    };
    std::vector<std::string> answers;  // complete output lines, without their newlines
    Ending ending = Ending::exited;
    int status = 0;
    std::string stderr_head;  // the first bytes it wrote to stderr, for the report
};

// `argv[0]` is looked up in PATH. `stop_early(line)` is asked of each answer; true kills the
// child at once (so a `yes` is not read to the deadline).
Transcript run_policy_process(const std::vector<std::string>& argv,
                              const std::vector<std::string>& input_lines, std::chrono::milliseconds timeout,
                              bool (*stop_early)(const std::string& line));

// "exited with status 1", "killed by signal 9", "timed out after 2000 ms (killed)", ...
std::string describe_ending(const Transcript& transcript, std::chrono::milliseconds timeout);

}  // namespace ckpt::sim::conformance
