#pragma once

// The hostile-input suite's shared pieces: run ckptsim under a time limit (a hang is a failure,
// never a stuck test), build hostile files at test time (a FIFO, a sparse 1 GiB file, deep
// nesting), and snapshot a directory tree to prove that `inspect` wrote nothing.
// CKPTSIM_HOSTILE_BINARY, when set, runs the suite against another build (the before count).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::testing::hostile {

// Exit status of `timeout` when the limit was reached.
inline constexpr int kTimedOut = 124;

inline std::string ckptsim_binary() {
    const char* other = std::getenv("CKPTSIM_HOSTILE_BINARY");
    return other != nullptr && *other != '\0' ? std::string(other) : std::string(CKPTSIM_BINARY);
}

// `ckptsim ARGS` in `dir`, killed after `seconds`: a hang shows as exit kTimedOut, a crash as a
// status that is neither 0, 1 nor 2.
inline Completed run_limited(const std::vector<std::string>& args, const std::filesystem::path& dir,
                             const std::optional<std::filesystem::path>& stdin_path = std::nullopt,
                             int seconds = 30) {
    std::vector<std::string> full{"/usr/bin/timeout", "-k", "5", std::to_string(seconds), ckptsim_binary()};
    full.insert(full.end(), args.begin(), args.end());
    return run_process(std::move(full), dir, stdin_path);
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

// A 1 GiB file that costs no disk: a hole of that size.
inline void write_sparse_gib(const std::filesystem::path& path) {
    std::filesystem::create_directories(path.parent_path());
    { std::ofstream touch(path, std::ios::binary | std::ios::trunc); }
    std::filesystem::resize_file(path, std::uintmax_t{1} << 30);
}

inline void make_fifo(const std::filesystem::path& path) {
    std::filesystem::create_directories(path.parent_path());
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
}

inline void replace_with_symlink(const std::filesystem::path& path, const std::string& target) {
    std::filesystem::create_directories(path.parent_path());
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::filesystem::create_symlink(target, path);
}

// Every entry under `root` with its kind, size, mode and mtime: equal before and after means
// nothing was created, removed, renamed or written.
inline std::string tree_snapshot(const std::filesystem::path& root) {
    std::string out;
    for (auto it = std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::skip_permission_denied);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
        struct stat status {};
        if (::lstat(it->path().c_str(), &status) != 0) {
            continue;
        }
        out += it->path().string() + " " + std::to_string(status.st_mode) + " " +
               std::to_string(status.st_size) + " " + std::to_string(status.st_mtim.tv_sec) + "." +
               std::to_string(status.st_mtim.tv_nsec) + "\n";
        if (it->is_symlink()) {
            it.disable_recursion_pending();
        }
    }
    return out;
}

}  // namespace ckpt::testing::hostile
