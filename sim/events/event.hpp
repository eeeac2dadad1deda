// What happened in one scenario, as the trainer, the disk hooks and the fault plan report it. The
// states some events carry are the policy's reports: the trace shows them, no verdict reads them.
// Every event is a small struct of values and references to the reporter's own data, so an
// event costs no allocation; sinks must not keep references past the call that delivers it.
// Depends only on the scenario vocabulary, the disk, the rank outcomes and the policy types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "policy/ports/file_bytes.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/crash_point.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// ---- the job's life (reported by the simulation) ----------------------------------------------

struct IncarnationBegan {
    int incarnation = 0;
    int ranks = 0;
    std::optional<std::int64_t> resume_step;
};
// The incarnation's ranks are gone; disk operations from here on belong to no rank.
struct IncarnationEnded {};
struct ResumeSourceChosen {
    std::int64_t step = 0;
    std::string_view name;
    bool complete = false;
};
// How the ranks of one incarnation ended; `dead_ranks` were killed by injected faults.
// The fixed resume rule (the port's launcher code) returned without choosing an incomplete
// checkpoint: what it resumes from (nothing: a start from scratch), and the newest checkpoint
// the simulator itself saw complete with whole weights before the rule ran (it removes what is
// newer than its pick, so this is taken first).
struct FixedResumeRuleReturned {
    std::optional<std::int64_t> chosen;
    std::optional<std::int64_t> newest_loadable;
};
struct RanksEnded {
    const RunResult& result;
    int dead_ranks = 0;
};
// Every rank of the incarnation finished training.
struct JobFinished {};
struct IncarnationLimitReached {
    int limit = 0;
};
struct UnexplainedFailure {
    const std::string& error;
};
// A job resumed under a changed callback configuration failed at its start; `error` is what it
// raised (the callbacks checker judges whether the refusal was due, and whether it says why).
struct ResumeRefused {
    const std::string& error;
};

// on_train_begin raised TrainingArgumentsRefused; `error` is its message (the refusal checker
// judges whether it was due and names the setting).
struct TrainingRefused {
    const std::string& error;
};

// Between incarnations, an operator applied a remedy (operator_relaunch.hpp) before launching the
// job again; `path` is what it deleted, durably, or empty.
struct OperatorRemedied {
    std::string_view remedy;
    const std::string& path;
};

// ---- the trainer (rank 0 only unless the struct names a rank) ----------------------------------

struct CallbacksRestored {
    std::int64_t step = 0;
    const nlohmann::json& restored_states;
    const std::vector<std::string>& warnings;
    // Whether the port's machinery restored them (the simulation chose it), not Transformers' own.
    bool by_the_port = false;
};
// on_train_begin returned: the policy was restored and recovery ran. `restored` is the policy's
// own report, for the trace only; the checkers judge the restore the ledger expects.
struct TrainBegan {
    const CheckpointEvaluationState& restored;
    bool resumed = false;
};
// The scenario's external baseline was offered to the restored policy, which now holds `state`.
struct BaselineEstablished {
    double score = 0.0;
    const CheckpointEvaluationState& state;
};
// Follows TrainBegan: recovery may have rewritten the sidecar.
struct RecoveryFinished {};
// A rank's policy state after collective number `sequence` of this incarnation, as the policy
// reports it: for the trace and the fault plan's mid-broadcast aim; no verdict reads it.
struct RankStateShared {
    int rank = 0;
    std::uint64_t sequence = 0;
    const CheckpointEvaluationState& state;
};
struct StepStarted {
    int rank = 0;
};
struct StepFinished {
    int rank = 0;
    std::int64_t global_step = 0;
};
// The epoch's end (on_epoch_end and the save or evaluation it asked for) is over at `global_step`.
struct EpochEnded {
    int rank = 0;
    std::int64_t global_step = 0;
};
struct EvaluationStarted {
    int rank = 0;
};
// Rank 0's model scored the checkpoint evaluation at `step`: the score the simulator hands the
// trigger callback's on_evaluate. The ledger decides from it, never from what the policy reports.
// `round` counts the incarnation's checkpoint evaluations from 0, on every rank alike.
struct EvaluationScored {
    std::uint64_t round = 0;
    std::int64_t step = 0;
    double score = 0.0;
};
// The trigger callback's on_evaluate returned on `rank` at `step`: the control flags it found and
// the ones it handed back to the trainer (before any other callback's on_evaluate touched them).
// A rank may return from round N after rank 0 scored round N+1 (ranks leave a collective one at a
// time), so the round, not the step, names the decision.
struct EvaluationReturned {
    int rank = 0;
    std::uint64_t round = 0;
    std::int64_t step = 0;
    bool saves_before = false;
    bool saves = false;
    bool stops_before = false;
    bool stops = false;
};
// The policy's own report of its decision, for the trace and the fault plan's aim; no verdict
// reads it.
struct DecisionMade {
    std::int64_t step = 0;
    double score = 0.0;
    const CheckpointEvaluationState& prior;
    const CheckpointEvaluationDecision& decision;
    const CheckpointEvaluationState& after;
};
// An evaluation of the trainer's own (DefaultFlowCallback's eval_strategy), not the callback's:
// the schedule judges only the callback's evaluations (EvaluationStarted).
struct TrainerEvaluationStarted {
    int rank = 0;
    std::int64_t step = 0;
};
// A rank's evaluation reported the score (the metric Transformers' best tracking reads), after
// every evaluation, the callback's and the trainer's own. Every rank reports each evaluation:
// under save_on_each_node another node may write the checkpoint before rank 0's callbacks ran.
struct MetricsEvaluated {
    std::int64_t step = 0;
    double score = 0.0;
    int rank = 0;
};
// load_best_model_at_end's barrier passed and rank 0 loads (or, when it is gone, warns about)
// the weights of best_model_checkpoint; the end-of-training clean-up follows.
struct BestModelLoading {
    std::int64_t step = 0;
    bool found = false;
};
// The rank applied a decision that stops (the policy's report; trace only).
struct StopInForce {
    int rank = 0;
};
// An EarlyStoppingCallback ran out of patience and asked the trainer to stop.
struct EarlyStoppingRequested {
    int rank = 0;
};
// persist() or a committing on_save() returned with the policy in `state`, as the policy reports
// it: for the trace only (the durability contract reads the disk itself).
struct SidecarPersisted {
    const CheckpointEvaluationState& state;
};
struct CheckpointStarted {
    std::int64_t step = 0;
};
// trainer_state.json of checkpoint-`step` was written (and, the second time, fsynced), by rank 0
// or, under save_on_each_node, by another node's local rank 0 too, before or after it.
// callback_states is never null; it is shared, not copied, so the ledger keeps the trainer's
// own export and the second report of one write is recognised without a deep compare.
struct TrainerStateWritten {
    std::int64_t step = 0;
    double score = 0.0;
    const CheckpointEvaluationState& policy_state;
    std::shared_ptr<const nlohmann::json> callback_states;
    const FileBytes& bytes;  // the runs written, shared with the disk's file
    int rank = 0;            // the writer: rank 0, or under save_on_each_node another node's local rank 0
};
// The rotation after a checkpoint write begins: the save window opens.
struct RotationStarted {};
struct SaveCallbackStarted {
    int rank = 0;
};
// Rank 0's on_save returned at `step`.
struct SaveCallbackReturned {
    std::int64_t step = 0;
};
struct Committed {
    std::int64_t step = 0;
};
struct CrashPointPassed {
    CrashPoint point = CrashPoint::step_end;
    int rank = 0;
};
// Rank 0 renames a new final_checkpoint link into place, naming checkpoint-`step`.
struct LinkPublished {
    std::int64_t step = 0;
    const std::string& target;
};

// ---- the fault plan's faults, as they are executed --------------------------------------------

struct CrashInjected {
    CrashPoint point = CrashPoint::step_end;
    CrashScope scope = CrashScope::job;
    int rank = 0;
    std::string_view label;  // job scope: process_kill or power_loss:<mode>
};
struct RankDeathInjected {
    int rank = 0;
    bool in_collective = false;  // killed by another rank while blocked in a collective
    bool mid_broadcast = false;  // ... after the collective released it, before it returned
};
struct SidecarCorrupted {
    const std::string& path;
};
struct CheckpointCorrupted {
    std::int64_t step = 0;
};
// A step-triggered fault (`after` names it) ends the job like a preemption.
struct Preempted {
    std::string_view after;
};
struct IoErrorInjected {
    IoTarget target = IoTarget::sidecar_write;
    std::string_view path;
};

using Event = std::variant<
    IncarnationBegan, IncarnationEnded, ResumeSourceChosen, RanksEnded, JobFinished, IncarnationLimitReached,
    UnexplainedFailure, ResumeRefused, CallbacksRestored, TrainBegan, BaselineEstablished, RecoveryFinished,
    RankStateShared, StepStarted, StepFinished, EpochEnded, EvaluationStarted, DecisionMade, StopInForce,
    SidecarPersisted, CheckpointStarted, TrainerStateWritten, RotationStarted, SaveCallbackStarted,
    SaveCallbackReturned, Committed, CrashPointPassed, LinkPublished, CrashInjected, RankDeathInjected,
    SidecarCorrupted, CheckpointCorrupted, Preempted, IoErrorInjected, EarlyStoppingRequested,
    MetricsEvaluated, BestModelLoading, EvaluationScored, EvaluationReturned, TrainingRefused,
    OperatorRemedied, TrainerEvaluationStarted, FixedResumeRuleReturned>;

}  // namespace ckpt::sim
