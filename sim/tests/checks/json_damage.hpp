#pragma once

// The JSON texts the checkers' readers are tested on: the fuzz corpora (real trainer_state.json
// and sidecar bytes the simulator wrote, and the other targets' hostile seeds), and damaged
// copies of them (truncation, byte and bit flips, insertions, deletions, zero-fill, duplicated
// spans, invalid UTF-8, bad escapes, overflowing numbers, deep nesting), drawn by the project's PRNG.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/rng.hpp"

namespace ckpt::sim::testing {

inline std::vector<std::string> corpus_texts() {
    std::vector<std::string> texts;
    for (const char* target : {"json_scanner", "sidecar", "trainer_state", "policy_line", "scenario"}) {
        const auto folder = std::filesystem::path(CKPT_FUZZ_CORPUS) / target;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder)) {
            files.push_back(entry.path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            std::ifstream in(file, std::ios::binary);
            std::ostringstream bytes;
            bytes << in.rdbuf();
            texts.push_back(bytes.str());
        }
    }
    return texts;
}

inline const std::vector<std::string> kInvalidUtf8 = {
    "\xC0\x80", "\xC1\xBF", "\xED\xA0\x80", "\xED\xBF\xBF",     "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
    "\xFF",     "\x80",     "\xE0\x80\xAF", "\xF0\x80\x80\xAF", "\xE2\x82",         "\xC3"};
inline const std::vector<std::string> kValidUtf8 = {"\xC3\xA9",     "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                                    "\xED\x9F\xBF", "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF"};
inline const std::vector<std::string> kEscapes = {
    "\\uD800", "\\uDC00", "\\uD83D\\uDE00", "\\u00e9",        "\\u0000", "\\x",
    "\\",      "\\u12",   "\\uD800\\n",     "\\uDBFF\\uDFFF", "\\/",     "\\\""};
inline const std::vector<std::string> kNumbers = {"e400",
                                                  "e-400",
                                                  "e308",
                                                  "999",
                                                  "0",
                                                  "-",
                                                  ".",
                                                  "e",
                                                  "E+",
                                                  "1e309",
                                                  "18446744073709551616",
                                                  "-9223372036854775809",
                                                  "."};
inline const std::string kStructural = "{}[],:\" \t\n\\-0123456789.eEtrufalsn";

inline std::size_t position(Rng& rng, const std::string& text) {
    return static_cast<std::size_t>(rng.below(text.size() + 1));
}

// One edit of `text`, chosen by `rng`.
inline void edit(Rng& rng, std::string& text) {
    const std::size_t at = position(rng, text);
    const std::size_t span = std::min<std::size_t>(text.size() - at, 1 + rng.below(8));
    switch (rng.below(12)) {
        case 0:
            text.resize(at);
            break;
        case 1:
            if (at < text.size()) {
                text[at] = static_cast<char>(rng.below(256));
            }
            break;
        case 2:
            if (at < text.size()) {
                text[at] = static_cast<char>(text[at] ^ (1 << rng.below(8)));
            }
            break;
        case 3:
            text.insert(at, 1,
                        rng.chance(1, 2) ? kStructural[rng.below(kStructural.size())]
                                         : static_cast<char>(rng.below(256)));
            break;
        case 4:
            text.erase(at, span);
            break;
        case 5:
            text.replace(at, span, std::string(span, '\0'));
            break;
        case 6:
            text.insert(position(rng, text), text.substr(at, span * 4));
            break;
        case 7:
            text.insert(at, rng.pick(kInvalidUtf8));
            break;
        case 8:
            text.insert(at, rng.chance(1, 2) ? rng.pick(kEscapes) : rng.pick(kValidUtf8));
            break;
        case 9:
            text.insert(at, rng.pick(kNumbers));
            break;
        case 10: {
            const std::size_t depth = 1 + rng.below(rng.chance(1, 4) ? 3000 : 40);
            text = "{\"a\":" + std::string(depth, '[') + text + std::string(depth - rng.below(2), ']') + "}";
            break;
        }
        default:
            text.insert(at, std::string(span, ' '));
            break;
    }
}

}  // namespace ckpt::sim::testing
