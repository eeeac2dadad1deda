#pragma once

// Running the real ckptsim binary from a test: fork+exec (a shell would add its own quoting
// rules) in a directory of the test's own, with stdout and stderr captured through files there.

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "policy/tests/support/temp_dir.hpp"

namespace ckpt::testing {

// How a process ended: its exit status (-1 when it did not exit normally) and what it printed.
struct Completed {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A started child: its pid and where its stdout and stderr go.
struct Started {
    pid_t pid = -1;
    std::filesystem::path out_path;
    std::filesystem::path err_path;
};

// Starts `args` (args[0] the executable's path) in `dir`, which also receives its stdout and
// stderr files. Its stdin is `stdin_path`, or /dev/null.
inline Started start_process(std::vector<std::string> args, const std::filesystem::path& dir,
                             const std::optional<std::filesystem::path>& stdin_path = std::nullopt) {
    std::vector<char*> argv;
    for (auto& arg : args) {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    const auto dir_name = dir.string();
    const auto in_name = stdin_path ? stdin_path->string() : std::string("/dev/null");
    Started started{-1, dir / "stdout", dir / "stderr"};
    const auto out_name = started.out_path.string();
    const auto err_name = started.err_path.string();
    started.pid = fork();
    if (started.pid == 0) {
        const int in = open(in_name.c_str(), O_RDONLY);
        const int out = open(out_name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err = open(err_name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (chdir(dir_name.c_str()) != 0 || in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 ||
            dup2(out, 1) < 0 || dup2(err, 2) < 0) {
            _exit(126);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    EXPECT_GT(started.pid, 0) << std::strerror(errno);
    return started;
}

// Waits for the child and collects what it printed; the output files are removed once read.
inline Completed finish_process(const Started& started) {
    Completed done;
    int status = 0;
    EXPECT_EQ(waitpid(started.pid, &status, 0), started.pid);
    done.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    done.out = read_all(started.out_path);
    done.err = read_all(started.err_path);
    std::error_code ignored;
    std::filesystem::remove(started.out_path, ignored);
    std::filesystem::remove(started.err_path, ignored);
    return done;
}

inline Completed run_process(std::vector<std::string> args, const std::filesystem::path& dir,
                             const std::optional<std::filesystem::path>& stdin_path = std::nullopt) {
    return finish_process(start_process(std::move(args), dir, stdin_path));
}

// `ckptsim ARGS` run in `dir`, so default output directories land there too.
inline Completed run_ckptsim(std::vector<std::string> args, const std::filesystem::path& dir,
                             const std::optional<std::filesystem::path>& stdin_path = std::nullopt) {
    args.insert(args.begin(), CKPTSIM_BINARY);
    return run_process(std::move(args), dir, stdin_path);
}

// A fixture with a fresh temp directory per test, in which ckptsim runs.
class CkptsimProcessTest : public ::testing::Test {
  protected:
    explicit CkptsimProcessTest(std::string_view prefix) : dir_(prefix) {}

    Completed ckptsim(std::vector<std::string> args,
                      const std::optional<std::filesystem::path>& stdin_path = std::nullopt) {
        return run_ckptsim(std::move(args), dir(), stdin_path);
    }

    std::filesystem::path dir() const { return dir_.path(); }

    // The scenario file `run --out` saves for the first seed in first_seed..50 whose run `mutant` breaks.
    std::string mutant_counterexample(const std::string& mutant = "tie_replaces_best", int first_seed = 1) {
        for (int seed = first_seed; seed <= 50; ++seed) {
            const auto run =
                ckptsim({"run", "--seed", std::to_string(seed), "--mutant", mutant, "--out", path("found")});
            if (run.exit_code == 1) {
                return path("found") + "/seed-" + std::to_string(seed) + "-" + mutant + ".json";
            }
        }
        ADD_FAILURE() << "no seed in 1..50 caught " << mutant;
        return {};
    }
    std::string path(std::string_view name) const { return dir_.at(name); }

  private:
    TempDir dir_;
};

}  // namespace ckpt::testing
