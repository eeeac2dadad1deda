// Small helpers the CLI tests share for reading a command's output: its lines, and the trace hash
// recomputed from the trace bytes by a restatement of FNV-1a 64 (not the simulator's own code).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::testing {

inline std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

// FNV-1a 64 over `bytes`, continuing from `hash` (the offset basis by default).
inline std::uint64_t reference_fnv1a64(std::string_view bytes, std::uint64_t hash = 14695981039346656037ULL) {
    for (const unsigned char byte : bytes) {
        hash = (hash ^ byte) * 1099511628211ULL;
    }
    return hash;
}

}  // namespace ckpt::testing
