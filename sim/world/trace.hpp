// The run's story as JSON Lines with an FNV-1a 64 hash over exactly those bytes, so a saved
// trace and the printed hash describe the same thing. Lines are kept or handed to a sink only on
// request; the hash always. Depends on sim/base.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/trace_hash.hpp"
#include "sim/world/trace_fields.hpp"

namespace ckpt::sim {

// The run's story as JSON Lines: one event per line, {"t", "inc", "rank", "kind", ...details}.
// The trace hash is FNV-1a 64 (sim/base/trace_hash.hpp) over exactly the bytes of those lines, each
// followed by '\n', so `ckptsim replay --trace out.jsonl` and the hash describe the same thing:
// hashing the file with any FNV-1a implementation gives the printed hash.
//
// Where a run's trace lines go as they are written (run and replay spool them to a file), so a
// long run need not hold its whole trace in memory. Each line comes without its '\n'.
class TraceLineSink {
  public:
    virtual ~TraceLineSink() = default;
    virtual void line(std::string_view text) = 0;
};

// Lines are kept only when asked for (tests); exploring hashes them and drops them, `run` and
// `replay` stream them to a TraceLineSink.
class Trace {
  public:
    explicit Trace(bool keep_lines = false, TraceLineSink* sink = nullptr)
        : keep_lines_(keep_lines), sink_(sink) {}

    // `time_ms` is virtual time; `rank` is -1 for job-level events.
    void record(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                const nlohmann::json& details = nlohmann::json::object());
    // The same line from members written straight to text: the hot events' form.
    void record(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                const TraceFields& details);

    std::string hash_hex() const { return hash_.hex(); }
    std::uint64_t hash() const noexcept { return hash_.value(); }
    std::uint64_t events() const noexcept { return events_; }
    const std::vector<std::string>& lines() const noexcept { return lines_; }

  private:
    void write_line(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                    std::string_view members);

    bool keep_lines_;
    TraceLineSink* sink_;
    TraceHash hash_;
    std::uint64_t events_ = 0;
    std::vector<std::string> lines_;
    std::string line_;  // the line being written, its capacity kept from line to line
};

}  // namespace ckpt::sim
