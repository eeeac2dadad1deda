// The scenario: everything a run depends on besides the build, as plain data with its scenario-file
// form (to_json/from_json round-trip; validate names the first bad field). Each enum here keeps its
// one name table beside it. Depends on policy/core (PolicySettings), sim/base, sim/disk's fault
// vocabulary, sim/ranks' rank limit and the crash points; the swarm that draws scenarios is swarm.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/disk/disk_faults.hpp"
#include "sim/ranks/rank_limit.hpp"
#include "sim/scenario/crash_point.hpp"

namespace ckpt::sim {

// A scenario file names the bad field in every error; the CLI turns this into exit status 2.
// The largest step count a scenario may ask for (max_steps, save_steps, at_step, ...).
inline constexpr std::int64_t kMaxScenarioSteps = 10'000'000;

class ScenarioError : public ckpt::ValueError {
  public:
    using ckpt::ValueError::ValueError;
};

// "best" (Transformers >= 4.47) saves only after an evaluation that found a new best metric.
enum class SaveStrategy : std::uint8_t { steps, epoch, best };
inline constexpr auto kSaveStrategyNames = make_enum_names<SaveStrategy>(
    {{SaveStrategy::steps, "steps"}, {SaveStrategy::epoch, "epoch"}, {SaveStrategy::best, "best"}});
static_assert(kSaveStrategyNames.complete());

// TrainingArguments.eval_strategy: when DefaultFlowCallback asks for an evaluation of its own
// (Transformers' default "no": only the callback's save-time evaluations run).
enum class EvalStrategy : std::uint8_t { no, steps, epoch };
inline constexpr auto kEvalStrategyNames = make_enum_names<EvalStrategy>(
    {{EvalStrategy::no, "no"}, {EvalStrategy::steps, "steps"}, {EvalStrategy::epoch, "epoch"}});
static_assert(kEvalStrategyNames.complete());

// Which EarlyStoppingCallback the trainer runs beside the trigger callback: Transformers' own
// (trainer_callback.py: compares each metric with TrainerState.best_metric, saves only its
// counter, asserts at on_train_begin that metric_for_best_model is set and evaluation is on) or
// the port's exportable one (seeds 000 and 002: keeps its own best, never asserts).
enum class EarlyStoppingCallbackKind : std::uint8_t { port, transformers };
inline constexpr auto kEarlyStoppingCallbackKindNames = make_enum_names<EarlyStoppingCallbackKind>(
    {{EarlyStoppingCallbackKind::port, "port"}, {EarlyStoppingCallbackKind::transformers, "transformers"}});
static_assert(kEarlyStoppingCallbackKindNames.complete());

// Which checkpoint a new incarnation resumes from: Transformers' get_last_checkpoint (largest N,
// no completeness check) or the fixed rule (largest complete N).
enum class ResumeRule : std::uint8_t { transformers, fixed };
inline constexpr auto kResumeRuleNames =
    make_enum_names<ResumeRule>({{ResumeRule::transformers, "transformers"}, {ResumeRule::fixed, "fixed"}});
static_assert(kResumeRuleNames.complete());

enum class ScoreKind : std::uint8_t { scripted, random_walk, improve_then_plateau, quantised };
inline constexpr auto kScoreKindNames =
    make_enum_names<ScoreKind>({{ScoreKind::scripted, "scripted"},
                                {ScoreKind::random_walk, "random_walk"},
                                {ScoreKind::improve_then_plateau, "improve_then_plateau"},
                                {ScoreKind::quantised, "quantised"}});
static_assert(kScoreKindNames.complete());

struct ScoreModelConfig {
    ScoreKind kind = ScoreKind::random_walk;
    // scripted: the score of the n-th evaluation step (cycled); other kinds ignore it.
    std::vector<double> script;
    // Steps trained again after a resume score differently (a different data order, dropout).
    bool noisy_replay = false;
    // A step-zero reference score the policy compares against but never links to.
    bool external_baseline = false;
};

enum class FaultAction : std::uint8_t {
    crash,               // at a crash point: a process kill or a power loss
    io_error,            // on one of rank 0's sidecar or link operations
    corrupt_sidecar,     // the sidecar is damaged at rest, then the job is preempted
    corrupt_checkpoint,  // the newest checkpoint's trainer_state.json is damaged, then preempted
    rank_death,          // one rank's process dies
    preemption,          // the whole job is killed cleanly and resumed
};
inline constexpr auto kFaultActionNames =
    make_enum_names<FaultAction>({{FaultAction::crash, "crash"},
                                  {FaultAction::io_error, "io_error"},
                                  {FaultAction::corrupt_sidecar, "corrupt_sidecar"},
                                  {FaultAction::corrupt_checkpoint, "corrupt_checkpoint"},
                                  {FaultAction::rank_death, "rank_death"},
                                  {FaultAction::preemption, "preemption"}});
static_assert(kFaultActionNames.complete());

enum class CrashScope : std::uint8_t { job, rank };
inline constexpr auto kCrashScopeNames =
    make_enum_names<CrashScope>({{CrashScope::job, "job"}, {CrashScope::rank, "rank"}});
static_assert(kCrashScopeNames.complete());

enum class CrashKind : std::uint8_t { process_kill, power_loss };
inline constexpr auto kCrashKindNames = make_enum_names<CrashKind>(
    {{CrashKind::process_kill, "process_kill"}, {CrashKind::power_loss, "power_loss"}});
static_assert(kCrashKindNames.complete());

enum class IoTarget : std::uint8_t {
    sidecar_write,
    sidecar_fsync,
    sidecar_rename,
    directory_fsync,
    link_symlink,
    link_rename,
};
inline constexpr auto kIoTargetNames =
    make_enum_names<IoTarget>({{IoTarget::sidecar_write, "sidecar_write"},
                               {IoTarget::sidecar_fsync, "sidecar_fsync"},
                               {IoTarget::sidecar_rename, "sidecar_rename"},
                               {IoTarget::directory_fsync, "directory_fsync"},
                               {IoTarget::link_symlink, "link_symlink"},
                               {IoTarget::link_rename, "link_rename"}});
static_assert(kIoTargetNames.complete());

// A crash aimed at a moment rather than a place (buggify.hpp): it fires at rank 0's first crash
// point after the `occurrence`-th such moment. `none` is a crash placed by point and occurrence.
enum class FaultAim : std::uint8_t {
    none,
    after_stop_decision,   // the policy just decided to stop
    after_stop_persisted,  // a stop was just written to the sidecar
    after_sidecar_lower,   // a lower score just went to the sidecar only (no checkpoint holds it)
    // rank_death: rank 0 kills `rank` at its first step_end at or after at_step; `rank`, not
    // running, is inside a collective (a rank only yields there).
    blocked_in_collective,
    // rank_death: the first time, once rank 0 passed at_step, that some rank has left a
    // collective (its payload in hand) while another has not, the lowest such live one dies
    // there, payload delivered and never returned; `rank` is unused.
    mid_broadcast,
};
inline constexpr auto kFaultAimNames =
    make_enum_names<FaultAim>({{FaultAim::none, "none"},
                               {FaultAim::after_stop_decision, "after_stop_decision"},
                               {FaultAim::after_stop_persisted, "after_stop_persisted"},
                               {FaultAim::after_sidecar_lower, "after_sidecar_lower"},
                               {FaultAim::blocked_in_collective, "blocked_in_collective"},
                               {FaultAim::mid_broadcast, "mid_broadcast"}});
static_assert(kFaultAimNames.complete());

struct PlannedFault {
    FaultAction action = FaultAction::crash;
    // crash: which crash point, and on its n-th passage (1-based) over the whole run.
    CrashPoint point = CrashPoint::step_end;
    std::uint32_t occurrence = 1;
    CrashScope scope = CrashScope::job;
    CrashKind kind = CrashKind::process_kill;
    PowerLossMode power_loss = PowerLossMode::strict;
    // crash with rank scope, rank_death: the rank that dies.
    int rank = 0;
    // rank_death, preemption, corrupt_*: the first step_end at or after this step.
    std::int64_t at_step = 0;
    // io_error: the operation (its n-th matching call, `occurrence`) and the error.
    IoTarget target = IoTarget::sidecar_write;
    FaultKind error = FaultKind::eio;
    // crash: aimed at a moment instead of `point` (then `point` is ignored); rank_death: killed
    // by rank 0 while blocked in a collective.
    FaultAim aim = FaultAim::none;
};

// Where the loop tests should_training_stop. Transformers tests it only after a step's
// on_step_end and _maybe_log_save_evaluate (and after the epoch-end ones): a stop already set at
// on_train_begin still trains one step. `before_step` is the older, kinder model.
enum class StopTest : std::uint8_t { after_step, before_step };
inline constexpr auto kStopTestNames =
    make_enum_names<StopTest>({{StopTest::after_step, "after_step"}, {StopTest::before_step, "before_step"}});
static_assert(kStopTestNames.complete());

// What the launcher passes as train(resume_from_checkpoint=...): the path get_last_checkpoint
// found (None when there is none: train from scratch, as Transformers' example scripts do), or
// True, where Transformers raises ValueError("No valid checkpoint found in output directory").
enum class ResumeArgument : std::uint8_t { last_checkpoint_path, always_true };
inline constexpr auto kResumeArgumentNames = make_enum_names<ResumeArgument>(
    {{ResumeArgument::last_checkpoint_path, "path"}, {ResumeArgument::always_true, "true"}});
static_assert(kResumeArgumentNames.complete());

// _rotate_checkpoints' order. Transformers >= 4.52 calls it with use_mtime=True: checkpoints sort
// by their directory's mtime, and by step when the mtimes span less than 1 s; before, by step.
enum class RotationOrder : std::uint8_t { mtime, step };
inline constexpr auto kRotationOrderNames =
    make_enum_names<RotationOrder>({{RotationOrder::mtime, "mtime"}, {RotationOrder::step, "step"}});
static_assert(kRotationOrderNames.complete());

// The Transformers release whose Trainer the scenario runs, where releases differ in what the
// simulated trainer models. Its listing, resume, rotation, refresh and callback restore follow
// v4.57, unchanged in v5. `v5` is a v5 release with PR #44583 (merged 2026-03-10): under
// save_strategy="best", _determine_best_metric also records best_global_step and _save_checkpoint
// names best_model_checkpoint (v4.5x leaves both None, so rotation protects nothing and
// load_best_model_at_end keeps the last model).
enum class TransformersRelease : std::uint8_t { v4_57, v5 };
inline constexpr auto kTransformersReleaseNames = make_enum_names<TransformersRelease>(
    {{TransformersRelease::v4_57, "4.57"}, {TransformersRelease::v5, "5"}});
static_assert(kTransformersReleaseNames.complete());

// How _save_checkpoint refreshes stateful_callbacks for several callbacks of one class:
// Transformers appends their states to the list built at init on every save (PR #33875 is not
// merged), so a restore zips the first ones, from train start; `replace` re-exports them.
enum class StatefulCallbacksRefresh : std::uint8_t { append, replace };
inline constexpr auto kStatefulCallbacksRefreshNames = make_enum_names<StatefulCallbacksRefresh>(
    {{StatefulCallbacksRefresh::append, "append"}, {StatefulCallbacksRefresh::replace, "replace"}});
static_assert(kStatefulCallbacksRefreshNames.complete());

// Where _load_callback_state puts the callbacks it rebuilt: Transformers removes each one and
// appends the new one at the end of the callback list; `kept` leaves them where they were.
enum class RestoredCallbacksPosition : std::uint8_t { end, kept };
inline constexpr auto kRestoredCallbacksPositionNames = make_enum_names<RestoredCallbacksPosition>(
    {{RestoredCallbacksPosition::end, "end"}, {RestoredCallbacksPosition::kept, "kept"}});
static_assert(kRestoredCallbacksPositionNames.complete());

// The Transformers side of a scenario, named as in TrainingArguments where it has a name there.
// Every field added after the first scenario files defaults to the older model, so those files
// replay unchanged; the swarm draws Transformers' defaults most often (swarm_trainer.cpp).
struct TrainerOptions {
    TransformersRelease transformers_release = TransformersRelease::v4_57;
    std::int64_t max_steps = 500;
    std::int64_t steps_per_epoch = 100;  // batches per epoch: epoch ends are save events too
    SaveStrategy save_strategy = SaveStrategy::steps;
    std::int64_t save_steps = 50;
    std::int64_t save_total_limit = 1;
    // Rotation keeps the checkpoint final_checkpoint names, closing the save window.
    bool protect_best_in_rotation = false;
    ResumeRule resume_rule = ResumeRule::fixed;
    // TrainingArguments.restore_callback_states_from_checkpoint (Transformers' default: false,
    // and _load_callback_state returns at once).
    bool restore_callback_states_from_checkpoint = true;
    // Not a TrainingArguments field: whether the checkpoint writer fsyncs its files and
    // directories. Transformers never does (false is the real behaviour).
    bool checkpoint_fsync = true;
    StopTest stop_test = StopTest::before_step;
    // train(resume_from_checkpoint=...) as the launcher passes it.
    ResumeArgument resume_from_checkpoint = ResumeArgument::last_checkpoint_path;
    RotationOrder rotation_order = RotationOrder::step;
    StatefulCallbacksRefresh stateful_callbacks_refresh = StatefulCallbacksRefresh::replace;
    RestoredCallbacksPosition restored_callbacks_position = RestoredCallbacksPosition::kept;
    // TrainingArguments.metric_for_best_model without its "eval_" prefix: empty is None (the
    // default), "score" or "loss" (the simulated evaluation reports the score and its negation as
    // the loss). Set, the trainer tracks best_metric, best_global_step and best_model_checkpoint.
    std::string metric_for_best_model;
    // TrainingArguments.greater_is_better; unset is Transformers' post-init default (true unless
    // the metric ends with "loss").
    std::optional<bool> greater_is_better;
    // TrainingArguments.load_best_model_at_end: after training, a barrier, then the weights of
    // best_model_checkpoint; with save_total_limit == 1 every other checkpoint is deleted.
    // Transformers' post-init sets metric_for_best_model to "loss" when it is None.
    bool load_best_model_at_end = false;
    // TrainingArguments.eval_strategy, eval_steps (unset: logging_steps, as Transformers' post-init
    // does) and logging_steps (Transformers' default 500). Every evaluation, the callback's or
    // the flow's, reports its metrics to log_history, _determine_best_metric and on_evaluate.
    EvalStrategy eval_strategy = EvalStrategy::no;
    std::optional<std::int64_t> eval_steps;
    std::int64_t logging_steps = 500;

    // Not a TrainingArguments field: how many pieces save_pretrained cuts the weights into (the
    // model's size over max_shard_size). 1 writes model.safetensors; more write the shards and
    // model.safetensors.index.json, and the checkpoint loads only when every shard does.
    int weights_shards = 1;
    // TrainingArguments.save_safetensors: false writes the weights with torch.save, as
    // pytorch_model.bin (or its shards and pytorch_model.bin.index.json), zip archives.
    bool save_safetensors = true;
    // TrainingArguments.save_only_model: a checkpoint holds the model, its config and
    // trainer_state.json, and no optimizer, scheduler or RNG file. Its help text says such a
    // checkpoint cannot be resumed from; train() resumes from it all the same, skipping what is
    // missing (a fresh optimizer, a logged RNG warning).
    bool save_only_model = false;
    // TrainingArguments.save_on_each_node: every node's local rank 0 saves the model, the
    // optimizer, trainer_state.json and rotates, as the main process does (TrainingArguments'
    // should_save). Meant for node-local storage; the simulated nodes share one output_dir, so a
    // checkpoint's files are written once per node and rotation runs once per node.
    bool save_on_each_node = false;
    // TrainingArguments.max_grad_norm (Transformers' default 1.0): above 0 the gradients are
    // clipped, and each training log carries their norm before clipping as "grad_norm"; 0 neither
    // clips nor logs one. Scenario files without it keep the older model, which logged no norm.
    double max_grad_norm = 0.0;
    // Not a TrainingArguments field: whether some steps' gradients overflow (a diverging step,
    // fp16's loss scale too high), so that the norm logged at them is inf or nan, which json.dumps
    // writes into trainer_state.json as Infinity and NaN (finding 28).
    bool gradient_overflows = false;

    std::int64_t effective_eval_steps() const { return eval_steps.value_or(logging_steps); }

    // The metric the trainer tracks after TrainingArguments' post-init ("" when none).
    std::string tracked_metric() const {
        return metric_for_best_model.empty() && load_best_model_at_end ? "loss" : metric_for_best_model;
    }
    // Whether _determine_best_metric records best_global_step, which _save_checkpoint then names
    // as best_model_checkpoint: under "steps" and "epoch", and from v5 (PR #44583) under "best".
    bool tracks_best_global_step() const {
        return save_strategy != SaveStrategy::best || transformers_release == TransformersRelease::v5;
    }
    bool tracked_greater_is_better() const {
        return greater_is_better.value_or(!tracked_metric().ends_with("loss"));
    }
};

// Issue 10: what the user changed before resuming. Every incarnation that resumes from a
// checkpoint is started with it; a start from scratch keeps the original configuration.
struct ResumeChange {
    std::optional<PolicySettings> policy;  // the trigger callback's settings
    // The EarlyStoppingCallbacks, by identity k (patience early_stopping_patience + k, threshold
    // early_stopping_threshold * k), in configuration order: one added, removed or reordered.
    std::optional<std::vector<int>> early_stopping;
    // The early-stopping callbacks' class switched: a user adopting the port's callback after
    // Transformers' own (or back), under the same class name.
    std::optional<EarlyStoppingCallbackKind> early_stopping_callback;
    bool any() const noexcept {
        return policy.has_value() || early_stopping.has_value() || early_stopping_callback.has_value();
    }
};

// The callbacks the trainer runs: the seed's trigger callback (its policy and its own schedule)
// and EarlyStoppingCallback instances beside it (several of one class).
struct CallbackOptions {
    PolicySettings policy;
    std::vector<std::int64_t> gate_steps;
    std::optional<std::int64_t> regular_steps;
    int early_stopping_callbacks = 0;
    // The older model's callback is the port's; Lightning's state keys exist only on the port's.
    EarlyStoppingCallbackKind early_stopping_callback = EarlyStoppingCallbackKind::port;
    bool early_stopping_state_keys = false;  // Lightning-style state keys instead of class + position
    // With state keys on, the callbacks of even identity carry none: keyed callbacks beside
    // positional ones of the same class, which a restore matches by key first, then by position.
    bool early_stopping_mixed_keys = false;
    // An upgrade across a resume: the first incarnation runs the previous release, which writes
    // the sidecar at version 1 (no last_evaluated_step); every later one runs this release.
    bool upgraded_across_resume = false;
    // Callback i gets patience early_stopping_patience + i. The default outlasts any run, so
    // they never stop it; a small one lets them stop training (a legitimate stop, P3 and P12).
    int early_stopping_patience = 1000;
    double early_stopping_threshold = 0.001;  // callback k's threshold is this times k
    ResumeChange resume_change;
};

// The callbacks one incarnation configures: the trigger's settings and the early-stopping
// identities, in order (the resume change's, for a job resumed from a checkpoint).
struct ConfiguredCallbacks {
    PolicySettings policy;
    std::vector<int> early_stopping;
    EarlyStoppingCallbackKind early_stopping_callback = EarlyStoppingCallbackKind::port;
};
ConfiguredCallbacks configured_callbacks(const CallbackOptions& callbacks, bool resumed_from_checkpoint);
// Whether the early-stopping callback of identity `id` carries a state key.
bool early_stopping_keyed(const CallbackOptions& callbacks, int id) noexcept;
// The sidecar version incarnation `incarnation` (0 is the first) writes.
int sidecar_version_written(const CallbackOptions& callbacks, int incarnation) noexcept;

// The job's processes and what the launcher does when they hang.
struct JobOptions {
    int ranks = 1;
    // The machines the ranks run on, ranks / nodes each, in rank order (torchrun's default): rank
    // r is local rank r % (ranks / nodes) of node r / (ranks / nodes). Only save_on_each_node
    // tells them apart.
    int nodes = 1;
    // A hang becomes a job crash (NCCL timeout) and the job resumes.
    bool watchdog = true;
};

// Everything a run depends on besides the build: replaying a scenario file needs nothing else.
// Grouped per component (TigerBeetle's Simulator.Options); the scenario file stays flat, so
// every file written before the grouping still replays.
struct Scenario {
    std::uint64_t seed = 0;
    JobOptions job;
    TrainerOptions trainer;
    CallbackOptions callbacks;
    ScoreModelConfig score;
    std::vector<PlannedFault> faults;
    // The buggify switches this seed turned on (sim/scenario/buggify.hpp), by name: a record of
    // why the fields above look as they do. Replaying never reads it.
    std::vector<std::string> buggify;

    // Checks every field; throws ScenarioError naming the first bad one.
    void validate() const;
    nlohmann::json to_json() const;
    static Scenario from_json(const nlohmann::json& document);
};

constexpr std::string_view to_string(FaultAction action) noexcept {
    return kFaultActionNames.name(action);
}
constexpr std::string_view to_string(IoTarget target) noexcept {
    return kIoTargetNames.name(target);
}

}  // namespace ckpt::sim
