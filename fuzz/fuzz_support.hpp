#pragma once

// What every libFuzzer target here shares: the exceptions that are a clean refusal of bad input
// (anything else escaping a target is a finding), and an in-memory output directory built from
// a small text format, so the inspect target needs no disk. Fuzz builds only (CKPT_FUZZ).

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "policy/base/errors.hpp"
#include "policy/ports/file_system.hpp"
#include "policy/ports/file_system_error.hpp"
#include "policy/tests/support/in_memory_file_system.hpp"

namespace ckpt::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`, swallowing the refusals the contract allows; any other exception escapes to
// libFuzzer, which reports it as a crash with the input that raised it.
template <typename Body>
void refusals_are_fine(Body&& body) {
    try {
        body();
    } catch (const ValueError&) {
    } catch (const RuntimeError&) {
    } catch (const FileSystemError&) {
    }
}

// One entry per line, paths relative to `root`:
//   D <path>            a directory
//   F <path> <text>     a file holding the rest of the line ("\n" in it stands for a newline)
//   L <path> <target>   a symlink
// Lines that do not fit are skipped: the fuzzer mutates freely and every input must mean a tree.
inline void build_tree(InMemoryFileSystem& fs, const std::string& root, std::string_view spec) {
    make_dirs(fs, root);
    std::istringstream in{std::string(spec)};
    for (std::string line; std::getline(in, line);) {
        if (line.size() < 3 || line[1] != ' ') {
            continue;
        }
        const auto space = line.find(' ', 2);
        const std::string relative =
            line.substr(2, space == std::string::npos ? std::string::npos : space - 2);
        std::string rest = space == std::string::npos ? std::string() : line.substr(space + 1);
        if (relative.empty() || relative.find("..") != std::string::npos) {
            continue;
        }
        for (std::size_t at = rest.find("\\n"); at != std::string::npos; at = rest.find("\\n", at + 1)) {
            rest.replace(at, 2, "\n");
        }
        const auto path = join_path(root, relative);
        try {
            if (line[0] == 'D') {
                make_dirs(fs, path);
            } else if (line[0] == 'F') {
                make_dirs(fs, parent_path(path));
                fs.write_file(path, rest);
            } else if (line[0] == 'L') {
                make_dirs(fs, parent_path(path));
                fs.symlink(rest, path);
            }
        } catch (const FileSystemError&) {
            // A path through a file or an existing name: this line adds nothing.
        }
    }
}

}  // namespace ckpt::fuzz
