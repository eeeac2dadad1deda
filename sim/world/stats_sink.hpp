// Counts what the events report into RunStats: steps, evaluations and checkpoints on rank 0,
// crash point passages, and every fault as it is executed. Virtual time is the clock's.
#pragma once

#include <string>

#include "sim/events/event.hpp"
#include "sim/world/run_stats.hpp"

namespace ckpt::sim {

class StatsSink {
  public:
    explicit StatsSink(RunStats& stats) : stats_(stats) {}

    void on(const StepStarted& e) noexcept { stats_.steps += e.rank == 0 ? 1 : 0; }
    void on(const EvaluationStarted& e) noexcept { stats_.evaluations += e.rank == 0 ? 1 : 0; }
    void on(const CheckpointStarted&) noexcept { stats_.checkpoints += 1; }
    void on(const CrashPointPassed& e) noexcept {
        if (e.rank == 0) {
            stats_.crash_point_passes[static_cast<std::size_t>(e.point)] += 1;
        }
    }
    void on(const CrashInjected& e) {
        stats_.crash_point_hits[static_cast<std::size_t>(e.point)] += 1;
        stats_.faults["crash"] += 1;
        stats_.crashes[std::string(e.label)] += 1;
    }
    void on(const RankDeathInjected&) {
        stats_.faults["rank_death"] += 1;
        stats_.crashes["rank_kill"] += 1;
    }
    void on(const Preempted& e) {
        stats_.faults[std::string(e.after)] += 1;
        stats_.crashes["process_kill"] += 1;
    }
    void on(const IoErrorInjected& e) { stats_.faults["io_error:" + std::string(to_string(e.target))] += 1; }
    void on(const auto&) noexcept {}

  private:
    RunStats& stats_;
};

}  // namespace ckpt::sim
