// Starting and ending child processes: an owned file descriptor, posix_spawn of an argv (looked
// up in PATH) in its own process group with chosen descriptors and extra environment, and a kill
// of that group followed by a reap, so no zombie outlives its owner. SIGPIPE is back to its
// default in the child and no signal is blocked there. Never throws from kill or reap.
#pragma once

#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace ckpt::sim {

// An owned descriptor, closed on destruction.
struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int value) : fd(value) {}
    Fd(Fd&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        reset();
        fd = std::exchange(other.fd, -1);
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    void reset() noexcept;
    bool open() const noexcept { return fd >= 0; }
};

struct PipePair {
    Fd read;
    Fd write;
};
// Both ends close on exec. Throws std::system_error.
PipePair make_pipe();
void set_nonblocking(const Fd& fd);

struct ChildSpec {
    std::vector<std::string> argv;
    // (descriptor in the child, descriptor here): dup2'd in the child, in this order.
    std::vector<std::pair<int, int>> descriptors;
    // "NAME=value" entries set in the child on top of this process's environment.
    std::vector<std::string> environment;
};

// Starts the child in a new process group. Returns 0 and sets `pid`, or the errno of the failure
// (an argv[0] not found in PATH is ENOENT).
int spawn_child(const ChildSpec& spec, pid_t& pid);

// SIGKILL to the child's process group, then waits for it. `status` receives its wait status.
void kill_and_reap(pid_t pid, int& status) noexcept;

}  // namespace ckpt::sim
