#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/checks/ledger.hpp"
#include "sim/checks/oracles.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/faults/fault_injector.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/trainer/score_model.hpp"
#include "sim/world/run_stats.hpp"
#include "sim/world/trace.hpp"

namespace ckpt::sim {

inline constexpr const char* kOutputDir = "/run/output";

// Virtual durations, so a summary can say how much training the exploration stood for.
inline constexpr std::int64_t kStepMs = 1'500;
inline constexpr std::int64_t kEvaluationMs = 60'000;
inline constexpr std::int64_t kCheckpointMs = 20'000;

// Everything one incarnation of the job shares between its ranks: the world (disk, ledger,
// trace) that outlives it, and the scheduler and resume point that belong to it alone.
struct JobContext {
    const Scenario& scenario;
    SimFileSystem& fs;
    const ScoreModel& scores;
    Ledger& ledger;
    Trace& trace;
    RunStats& stats;
    Oracles& oracles;
    FaultInjector& faults;
    RankScheduler& scheduler;
    int incarnation = 0;
    std::optional<std::int64_t> resume_step;  // the checkpoint this incarnation starts from
    // Its trainer_state.json, migrated: every rank reads the same bytes, so it is parsed once.
    nlohmann::json resume_trainer_state;
    // From rank 0's rotation to the commit that follows: the end of its on_save, or, when a
    // crash or an error cut the commit short, the recovery in the next on_train_begin. The
    // seed's design may leave final_checkpoint dangling here (DESIGN.md, P4). It belongs to
    // the world, not the incarnation, because an interrupted window stays open across a crash.
    bool& in_save_window;
    // Rank 0 is inside the callback's on_save, after its barrier: every rank's files must exist.
    bool in_on_save = false;

    std::int64_t now() const noexcept { return stats.virtual_ms; }
    void record(int rank, std::string_view kind, const nlohmann::json& details = nlohmann::json::object()) {
        trace.record(stats.virtual_ms, incarnation, rank, kind, details);
    }
};

}  // namespace ckpt::sim
