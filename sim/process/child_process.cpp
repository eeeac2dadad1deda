// posix_spawn with the descriptors and environment a child needs, and the group kill that ends
// it: a wrapper script's own children die with it.
#include "sim/process/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

extern char** environ;

namespace ckpt::sim {

void Fd::reset() noexcept {
    if (fd >= 0) {
        ::close(fd);
    }
    fd = -1;
}

PipePair make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        throw std::system_error(errno, std::generic_category(), "pipe2");
    }
    return {Fd(fds[0]), Fd(fds[1])};
}

void set_nonblocking(const Fd& fd) {
    ::fcntl(fd.fd, F_SETFL, ::fcntl(fd.fd, F_GETFL) | O_NONBLOCK);
}

namespace {

// This process's environment with `extra` set over it (an entry of the same name is replaced).
std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view current(*entry);
        const auto name = current.substr(0, current.find('=') + 1);
        bool replaced = false;
        for (const auto& added : extra) {
            replaced = replaced || std::string_view(added).starts_with(name);
        }
        if (!replaced) {
            out.emplace_back(current);
        }
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

}  // namespace

int spawn_child(const ChildSpec& spec, pid_t& pid) {
    if (spec.argv.empty()) {
        return EINVAL;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (const auto& [child_fd, parent_fd] : spec.descriptors) {
        posix_spawn_file_actions_adddup2(&actions, parent_fd, child_fd);
    }
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes,
                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    auto argv = spec.argv;
    auto environment =
        spec.environment.empty() ? std::vector<std::string>() : merged_environment(spec.environment);
    auto args = pointers_to(argv);
    auto envp = pointers_to(environment);
    const int failed = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(),
                                    spec.environment.empty() ? environ : envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return failed;
}

void kill_and_reap(pid_t pid, int& status) noexcept {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace ckpt::sim
