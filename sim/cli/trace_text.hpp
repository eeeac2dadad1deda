// The readable trace: one aligned line per machine-trace line, a column per rank, crash, resume,
// hang and violation lines marked (ANSI colour only when asked, for a TTY), the policy state at
// each decision and restore, and each violation explained right after the line it judges.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace ckpt::cli {

struct TextTraceOptions {
    bool colour = false;
    std::size_t first = 0;  // print lines [first, last)
    std::size_t last = static_cast<std::size_t>(-1);
};

void print_text_trace(std::ostream& out, const std::vector<std::string>& lines,
                      const TextTraceOptions& options);

// The line number of the first violation, or lines.size() when there is none.
std::size_t first_violation_line(const std::vector<std::string>& lines);

}  // namespace ckpt::cli
