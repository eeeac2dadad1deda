// Where `run` and `replay` keep a run's trace lines: an unnamed temporary file, not memory, so a
// long run's peak memory does not follow the length of its trace. It hands the lines back, byte
// for byte, to whatever the flags ask for (--trace, --svg, the readable trace). Failures to
// write or read the spool are sim::ScenarioError.
#pragma once

#include <cstddef>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world/trace.hpp"

namespace ckpt::cli {

class TraceSpool final : public sim::TraceLineSink {
  public:
    TraceSpool();
    ~TraceSpool() override;
    TraceSpool(const TraceSpool&) = delete;
    TraceSpool& operator=(const TraceSpool&) = delete;

    void line(std::string_view text) override;

    std::size_t size() const noexcept { return lines_; }
    // The number of the first line that reports a violation, or size() when none does.
    std::size_t first_violation() const noexcept { return first_violation_; }
    // Lines [0, min(count, size())), without their '\n'.
    std::vector<std::string> read(std::size_t count = static_cast<std::size_t>(-1)) const;
    // Every line, each followed by '\n': exactly the bytes the trace hash covers.
    void copy_to(std::ostream& out) const;

  private:
    void rewind() const;

    std::FILE* file_;
    std::size_t lines_ = 0;
    std::size_t first_violation_ = 0;
    bool violation_seen_ = false;
    mutable bool reading_ = false;  // the file position is not at the end: seek before appending
};

}  // namespace ckpt::cli
