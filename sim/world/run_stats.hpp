// What one scenario did, counted for explore's summary and the benchmarks' sanity figures.
// Counts only, never consulted by a checker: they describe a run, they do not judge it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "sim/scenario/crash_point.hpp"
#include "sim/world/rare_path.hpp"

namespace ckpt::sim {

// What one scenario did, for explore's summary and the benchmarks' sanity figures.
struct RunStats {
    std::uint64_t steps = 0;              // optimizer steps on rank 0, retrained ones included
    std::uint64_t evaluations = 0;        // checkpoint evaluations (rank 0)
    std::uint64_t checkpoints = 0;        // native checkpoints written
    std::uint64_t incarnations = 0;       // job starts, the first included
    std::uint64_t resumes = 0;            // starts from a checkpoint
    std::uint64_t hangs = 0;              // hangs detected (with or without a watchdog)
    std::uint64_t watchdog_restarts = 0;  // of those, ended by the watchdog and restarted
    std::uint64_t stopped_by_policy = 0;  // 1 when the job finished because patience ran out
    std::uint64_t refusals_fixed = 0;     // 1 when a refusal was fixed and the job launched again
    std::uint64_t trained_to_end = 0;     // 1 when an incarnation's training loop ended (max_steps or a stop)
    std::map<std::string, std::uint64_t> relaunches;                   // operator remedies applied, by remedy
    std::int64_t virtual_ms = 0;                                       // simulated wall time
    std::array<std::uint64_t, kCrashPointCount> crash_point_passes{};  // rank 0 passages
    std::array<std::uint64_t, kCrashPointCount> crash_point_hits{};    // crashes injected there
    std::map<std::string, std::uint64_t> crashes;  // process_kill / power_loss:<mode> / rank_kill
    std::map<std::string, std::uint64_t> faults;   // every fault kind that fired
    std::uint64_t save_window_dangling = 0;        // crash points passed with a dangling link in the window
    // 1 for each rare path this scenario reached; summed, the scenarios reaching it.
    std::array<std::uint64_t, kRarePathCount> rare_paths{};

    std::uint64_t faults_fired() const {
        std::uint64_t total = 0;
        for (const auto& [kind, count] : faults) {
            total += count;
        }
        return total;
    }
};

}  // namespace ckpt::sim
