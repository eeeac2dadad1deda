// The port of the seed's CheckpointEvaluationTriggerCallback: save events become evaluations, and
// only an improved score is saved and published (link, then sidecar) from on_save, after every
// rank wrote the checkpoint. All I/O is through the FileSystem and Collective ports; only rank 0
// touches the sidecar and link, and every rank-zero outcome is broadcast. Errors: ValueError for
// bad config or state, RuntimeError for a call out of order. Depends on policy/ only.
#pragma once

// The seed's CheckpointEvaluationTriggerCallback, over the FileSystem and Collective ports, with
// one change of behaviour: a save event at a step the restored sidecar already counted (a step
// replayed after a resume from an older checkpoint) is neither evaluated nor saved, so a lower
// score counts toward patience once. Depends on base, python, core, ports, callbacks, formats
// and output_dir.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"
#include "policy/callbacks/trainer_types.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/formats/sidecar_format.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

struct TriggerCallbackConfig {
    bool enabled = true;
    PolicySettings policy;
    // Irregular warm-up evaluation steps (for example 10, 25, 50), promoted to save events.
    std::vector<std::int64_t> gate_steps;
    std::optional<std::int64_t> regular_steps;
    std::int64_t save_total_limit = 1;
    std::optional<std::string> output_dir;
    // Names this process's sidecar temp files (".checkpoint_eval_state.json.tmp-<tag>-<n>"), so two
    // processes writing one output_dir (a stale rank 0 beside a new job) never share a temp
    // file. Empty means the process id; the simulator sets a fixed tag so traces stay
    // reproducible across processes.
    std::string temp_file_tag;
    // The evaluation metric the callback's scores are, higher being better (without "eval_"). A
    // Trainer that tracks another best, or this one lower-is-better, keeps another checkpoint alive
    // in rotation, and a crash can then relink final_checkpoint to it (swarm seed 10193).
    std::string score_metric = "score";
    // The sidecar version persist() writes: 2, or 1 (the seed's layout, without
    // last_evaluated_step) so that the previous release can still read it after a rollback.
    // Any other value is a ValueError.
    int sidecar_version = kSidecarVersion;
};

// A port of the seed's CheckpointEvaluationTriggerCallback.
//
// Transformers' own save schedule stays the clock: DefaultFlowCallback sets should_save, this
// callback turns that save into an evaluation, and the trainer's decision turns saving back on
// only for an improved score. The retained best is published (final_checkpoint link, then the
// sidecar) only from on_save, after the native checkpoint is written on every rank. Lower
// scores have no checkpoint to live in, so the trainer persists them in the sidecar at once.
//
// All I/O goes through the FileSystem and Collective ports; only global rank 0 touches the
// sidecar and the link, and every rank-zero outcome is broadcast so no rank is left waiting.
//
// Replayed steps. A resume restarts from checkpoint-N and trains N+1.. again, but an adopted
// sidecar may already have counted lower scores up to its last_evaluated_step L > N. A save
// event at a step <= L (scheduled, gate, regular or epoch end) is therefore dropped: no
// evaluation is requested, should_save is cleared and trigger_count is unchanged. It is safe
// because the window (N, L] only ever held non-saving evaluations: a saving one would have left
// a complete checkpoint newer than N (then it would be the resume point), or the sidecar naming
// it would not be adopted. So the replay keeps exactly the checkpoints and the counts the first
// run had. L unknown (a seed version 1 sidecar, or no adopted sidecar) skips nothing, as the
// seed; restoring from checkpoint-N's trainer_state.json alone needs no L, since nothing after N
// was counted in that state. A version 1 sidecar written before an upgrade carries no L, and
// its count of evaluations beyond checkpoint-N cannot say which save events they were (one may
// have been at step N itself, after the checkpoint), so its window is counted again, once.
// on_train_begin's refusal of TrainingArguments under which no callback can keep its guarantees;
// the message names the setting and the fix. A ValueError, as the seed's validation errors are.
class TrainingArgumentsRefused : public ValueError {
  public:
    using ValueError::ValueError;
};

class TriggerCallback final : public ExportableState {
  public:
    static constexpr int kSidecarVersion = ckpt::kSidecarVersion;

    // Validates like the seed: save_total_limit > 0, gate steps > 0 (deduplicated, sorted),
    // regular_steps > 0. Throws ValueError.
    TriggerCallback(TriggerCallbackConfig config, FileSystem& fs, Collective& collective);
    // Rebuilds a callback from state(): the saved args override, then the attributes. Unlike
    // the seed's lenient reading, a member state() never writes (a key a fault garbled) is a
    // ValueError naming it. `temp_file_tag` is process-local configuration, never part of the
    // saved state.
    static TriggerCallback from_state(const nlohmann::json& state, FileSystem& fs, Collective& collective,
                                      std::string temp_file_tag = {});

    // Transformers callback events. on_train_begin refuses, with a ValueError naming the
    // setting and the fix, save_strategy="best" and save_total_limit=1 beside a Trainer-tracked
    // best (metric_for_best_model or load_best_model_at_end).
    void on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                        TrainerControl& control);
    void on_step_end(const TrainerStateView& state, TrainerControl& control) noexcept;
    void on_epoch_end(const TrainerStateView& state, TrainerControl& control) noexcept;
    void on_save(const TrainerStateView& state, TrainerControl& control);

    // Returns and clears whether the next evaluation is a save-time one.
    bool consume_checkpoint_evaluation() noexcept;
    // Records the trainer's decision. A save becomes durable only in on_save; a second save
    // before the prior one committed is a RuntimeError.
    void record_checkpoint_evaluation_decision(const CheckpointEvaluationDecision& decision);
    void record_checkpoint_evaluation_decision(const nlohmann::json& decision);

    // Writes the sidecar atomically (rank 0 only). Returns its path, or nothing when this rank
    // does not write or no output_dir is known. `is_world_process_zero` overrides the cached role.
    std::optional<std::string> persist(std::optional<bool> is_world_process_zero = std::nullopt);
    // Loads the sidecar on rank 0 under the seed's rules; false when absent, stale or uncommitted.
    bool load(std::optional<bool> is_world_process_zero = std::nullopt);

    std::string class_name() const override { return std::string(kTriggerCallbackClass); }
    nlohmann::json state() const override;

    std::optional<std::string> state_path() const;
    CheckpointEvaluationPolicy& policy() noexcept { return policy_; }
    const CheckpointEvaluationPolicy& policy() const noexcept { return policy_; }
    const TriggerCallbackConfig& config() const noexcept { return config_; }
    bool pending_checkpoint_evaluation() const noexcept { return pending_checkpoint_evaluation_; }
    std::int64_t trigger_count() const noexcept { return trigger_count_; }
    std::optional<std::int64_t> pending_checkpoint_save_step() const noexcept { return pending_save_step_; }
    bool policy_stop_requested() const noexcept { return policy_stop_requested_; }
    // The step of the last evaluation recorded or restored; nullopt when unknown.
    std::optional<std::int64_t> last_evaluated_step() const noexcept { return last_evaluated_step_; }
    // Save events at or before this step are replays of counted ones (set by on_train_begin).
    std::optional<std::int64_t> replay_horizon() const noexcept { return replay_horizon_; }

    // True once this callback holds a state saved in a checkpoint (rebuilt by from_state, or
    // restored by on_train_begin itself from the resume checkpoint).
    bool state_restored() const noexcept { return state_restored_; }

  private:
    bool is_rank_zero() const noexcept { return is_world_process_zero_.value_or(true); }
    // Transformers restores callback states only with restore_callback_states_from_checkpoint
    // (default False). A resumed run has state.global_step = N of its checkpoint-N: take this
    // callback's saved attributes from that checkpoint's trainer_state.json, as a restore would.
    void restore_own_state_from_checkpoint(std::int64_t global_step);
    void apply_saved_attributes(const nlohmann::json& attributes);
    // A saved state (from `source`, a path or a description) holding a member state() does not
    // write is a damaged one: ValueError naming it (finding 26).
    void refuse_unwritten_members(const nlohmann::json& saved, const std::string& source) const;
    // A resume must not re-judge counts under other settings: throws ValueError naming every
    // changed setting, the saved and configured values, and the fix.
    void refuse_changed_settings(const nlohmann::json& saved_args, std::int64_t checkpoint_step) const;
    void make_checkpoint_durable(std::int64_t step);
    void drop_link_to_lost_checkpoint();
    void remove_abandoned_sidecar();
    // Throws ValueError naming the setting and its fix (on every rank alike, before any I/O).
    void refuse_unsafe_training_args(const TrainingArguments& args) const;
    bool step_is_scheduled(std::int64_t step) const noexcept;
    bool replays_counted_step(std::int64_t step) const noexcept;
    // An epoch end a stop brought forward (TrainerState.epoch not whole) is a save event the schedule
    // does not make: a replay has one the restored history counted only where that history stopped
    // too, and its evaluation there was the last it made (finding 19).
    bool replays_counted_epoch_end(const TrainerStateView& state) const noexcept;
    void redirect_save_to_evaluate(TrainerControl& control, const TrainerStateView& state,
                                   bool at_epoch_end) noexcept;
    bool best_checkpoint_is_complete();
    void publish_best_checkpoint();
    void commit_saved_checkpoint(std::int64_t step);
    void recover_committed_checkpoint_artifacts();
    // Takes last_evaluated_step from the restore outcome rank 0 shared, as the replay horizon.
    void adopt_replay_horizon(const nlohmann::json& restore_outcome);
    void remove_leftover_temp_files();
    std::string next_temp_path(const std::string& path);

    TriggerCallbackConfig config_;
    FileSystem* fs_;
    Collective* collective_;
    CheckpointEvaluationPolicy policy_;
    bool pending_checkpoint_evaluation_ = false;
    std::int64_t trigger_count_ = 0;
    // Process-local: a checkpoint is serialised before on_save, so persisting this would make
    // a restored callback wait for a save that already happened. The stop flag below is
    // mirrored in the policy state and does survive a resume.
    std::optional<std::int64_t> pending_save_step_;
    bool policy_stop_requested_ = false;
    // Written to the sidecar beside the policy state, in the same atomic write, so a rolled-back
    // sidecar rolls both back together. Not part of state(): trainer_state.json keeps the seed's
    // attributes, and a checkpoint's own state never counted a step after it.
    std::optional<std::int64_t> last_evaluated_step_;
    std::optional<std::int64_t> replay_horizon_;
    // Cached in on_train_begin so persist() may be called on every rank without racing.
    std::optional<bool> is_world_process_zero_;
    bool resumed_run_ = false;  // on_train_begin saw global_step > 0
    // load() refused the sidecar as an abandoned history's; on_train_begin's recovery removes it
    // once the link is repaired (finding 27). Cleared by every persist().
    bool sidecar_abandoned_ = false;
    std::uint64_t temp_counter_ = 0;
    bool state_restored_ = false;
};

}  // namespace ckpt
