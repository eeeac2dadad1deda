// Counts what the events report into RunStats: steps, evaluations and checkpoints on rank 0,
// crash point passages, and every fault as it is executed. Virtual time is the clock's.
#pragma once

#include <string>

#include "sim/events/event.hpp"
#include "sim/world/rare_path_tracker.hpp"
#include "sim/world/run_stats.hpp"

namespace ckpt::sim {

class StatsSink {
  public:
    StatsSink(RunStats& stats, const Scenario& scenario, const Ledger& ledger)
        : stats_(stats), rare_paths_(stats.rare_paths, scenario, ledger) {}

    // Every event also goes to the rare-path tracker first.
    template <typename E>
    void on(const E& e) {
        rare_paths_.on(e);
        count(e);
    }

  private:
    void count(const StepStarted& e) noexcept { stats_.steps += e.rank == 0 ? 1 : 0; }
    void count(const EvaluationStarted& e) noexcept { stats_.evaluations += e.rank == 0 ? 1 : 0; }
    void count(const CheckpointStarted&) noexcept { stats_.checkpoints += 1; }
    void count(const CrashPointPassed& e) noexcept {
        if (e.rank == 0) {
            stats_.crash_point_passes[static_cast<std::size_t>(e.point)] += 1;
        }
    }
    void count(const CrashInjected& e) {
        stats_.crash_point_hits[static_cast<std::size_t>(e.point)] += 1;
        stats_.faults["crash"] += 1;
        stats_.crashes[std::string(e.label)] += 1;
    }
    void count(const RankDeathInjected&) {
        stats_.faults["rank_death"] += 1;
        stats_.crashes["rank_kill"] += 1;
    }
    void count(const Preempted& e) {
        stats_.faults[std::string(e.after)] += 1;
        stats_.crashes["process_kill"] += 1;
    }
    void count(const IoErrorInjected& e) {
        stats_.faults["io_error:" + std::string(to_string(e.target))] += 1;
    }
    void count(const auto&) noexcept {}

    RunStats& stats_;
    RarePathTracker rare_paths_;
};

}  // namespace ckpt::sim
