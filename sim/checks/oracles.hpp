#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/checks/property.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/crash_point.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct JobContext;

// The property checks, as functions over the ledger and the simulated disk. The trainer model
// and the simulation call them at the moments DESIGN.md names: after operations that change
// what they watch, at every crash point passed, after every resume, and at the end.
class Oracles {
  public:
    Oracles(const Scenario& scenario, SimFileSystem& fs, Ledger& ledger);

    void attach(JobContext* job) noexcept { job_ = job; }

    // P11 and the ledger: rank 0 made `decision` from `prior` on (step, score).
    void on_decision(const CheckpointEvaluationState& prior, std::int64_t step, double score,
                     const CheckpointEvaluationDecision& decision, const CheckpointEvaluationState& after);
    // P3: a rank is about to take an optimizer step, or to start an evaluation.
    void on_optimizer_step(int rank);
    void on_evaluation_start(int rank);
    // P3: the rank applied a decision that stops, or restored a durable stop.
    void on_stop_in_force(int rank) noexcept;
    // P7: a rank's policy state after collective number `sequence` of this incarnation.
    void on_rank_state(int rank, std::uint64_t sequence, const CheckpointEvaluationState& policy_state);

    // P2 + P9: rank 0's persist() or on_save() returned with the policy in `state`.
    void after_sidecar_write(const CheckpointEvaluationState& state);
    // The ledger: on_train_begin's recovery may have rewritten the sidecar; record what the
    // durable view now holds.
    void after_recovery();
    // The ledger: rank 0 finished trainer_state.json of checkpoint-N (written and fsynced).
    void after_checkpoint_write(CheckpointRecord record);
    // P1 + P4: rank 0 is about to publish final_checkpoint -> checkpoint-N.
    void on_link_publish(std::int64_t step);
    // P4: a crash point was passed.
    void at_crash_point(CrashPoint point);

    // P5: the resume picked `step` (complete or not).
    void on_resume_source(std::int64_t step, bool complete);
    // P10: after restore_stateful_callbacks, before on_train_begin.
    void after_callback_restore(std::int64_t step, const nlohmann::json& restored_states,
                                const std::vector<std::string>& warnings);
    // P2, P4, P5: rank 0 after on_train_begin (restore and recovery) of a resumed or fresh job.
    void after_train_begin(const CheckpointEvaluationState& restored, bool resumed);
    // P1 + P4 at the end of a job that finished.
    void at_job_end(const CheckpointEvaluationState& final_state);
    // P6: how the ranks of one incarnation ended. `dead_ranks` were killed by injected faults.
    void after_incarnation(const RunResult& result, int dead_ranks);

    void violate(Property property, std::string message);
    const std::vector<Violation>& violations() const noexcept { return violations_; }
    bool violated(Property property) const noexcept;

    // Begins an incarnation: per-incarnation bookkeeping (stops in force, P7 table).
    void begin_incarnation(int world_size);

    // The oracle's own completeness test (it never uses the policy's, which a mutant may bend).
    bool checkpoint_is_complete(std::int64_t step) const;

  private:
    bool checkpoint_has_every_shard(std::int64_t step) const;
    std::optional<std::int64_t> visible_link_step() const;
    // Applies a pending link publication if the disk shows the rename happened.
    void settle_link();
    CheckpointEvaluationState expected_floor() const;
    bool record_intact(const CheckpointRecord& record) const;

    const Scenario& scenario_;
    SimFileSystem& fs_;
    Ledger& ledger_;
    JobContext* job_ = nullptr;
    std::vector<Violation> violations_;
    std::vector<bool> stop_in_force_;
    std::vector<std::pair<std::uint64_t, CheckpointEvaluationState>> agreement_;  // by sequence: first rank's
    std::uint64_t link_checked_at_ops_ = UINT64_MAX;  // file-system operation count of the last P4 check
    bool link_check_was_ok_ = true;
    std::optional<std::int64_t> link_checked_step_;
};

}  // namespace ckpt::sim
