// TriggerCallback's events and its commit after the native save; the rules are
// trigger_callback.hpp's (state() and from_state() are trigger_callback_state.cpp's, the sidecar
// I/O trigger_callback_sidecar.cpp's).
#include "policy/trigger/trigger_callback.hpp"

#include <algorithm>

#include "policy/base/errors.hpp"
#include "policy/base/json_object.hpp"
#include "policy/base/mutants.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"
#include "policy/ports/rank_zero_outcome.hpp"

namespace ckpt {

using mutants::Mutant;
using nlohmann::json;

TriggerCallback::TriggerCallback(TriggerCallbackConfig config, FileSystem& fs, Collective& collective)
    : config_(std::move(config)), fs_(&fs), collective_(&collective), policy_(config_.policy) {
    if (config_.save_total_limit <= 0) {
        throw ValueError("checkpoint evaluation save_total_limit must be positive");
    }
    for (const auto step : config_.gate_steps) {
        if (step <= 0) {
            throw ValueError("checkpoint evaluation gate_steps must contain positive integers");
        }
    }
    std::sort(config_.gate_steps.begin(), config_.gate_steps.end());
    config_.gate_steps.erase(std::unique(config_.gate_steps.begin(), config_.gate_steps.end()),
                             config_.gate_steps.end());
    if (config_.regular_steps && *config_.regular_steps <= 0) {
        throw ValueError("checkpoint evaluation regular_steps must be positive");
    }
    if (config_.sidecar_version != kSeedSidecarVersion && config_.sidecar_version != kSidecarVersion) {
        throw ValueError("checkpoint evaluation sidecar_version must be 1 or 2");
    }
}

std::optional<std::string> TriggerCallback::state_path() const {
    if (!config_.output_dir || config_.output_dir->empty()) {
        return std::nullopt;
    }
    return join_path(*config_.output_dir, kSidecarName);
}

// ---- save events -------------------------------------------------------------------------

bool TriggerCallback::step_is_scheduled(std::int64_t step) const noexcept {
    if (std::binary_search(config_.gate_steps.begin(), config_.gate_steps.end(), step) &&
        !mutants::is_active(Mutant::gate_steps_ignored)) {
        return true;
    }
    return config_.regular_steps && step > 0 && step % *config_.regular_steps == 0;
}

void TriggerCallback::redirect_save_to_evaluate(TrainerControl& control, const TrainerStateView& state,
                                                bool at_epoch_end) noexcept {
    const auto step = state.global_step;
    // Transformers still calls on_epoch_end after a policy stop, and DefaultFlowCallback may set
    // should_save there: veto it, or the run pays one more evaluation after patience ran out.
    // control.should_training_stop is not the test: it is also true at max_steps, where the
    // final scheduled checkpoint must still be evaluated.
    const bool veto =
        policy_stop_requested_ && !(at_epoch_end && mutants::is_active(Mutant::no_epoch_end_veto));
    if (veto) {
        control.should_save = false;
        control.should_evaluate = false;
        pending_checkpoint_evaluation_ = false;
        return;
    }
    // Only should_save is a save event: should_evaluate may be the trainer's own eval_strategy.
    const bool save_event =
        control.should_save ||
        (mutants::is_active(Mutant::trainer_evaluation_taken_for_save) && control.should_evaluate);
    if (!config_.enabled || !save_event) {
        return;
    }
    control.should_save = false;
    if (at_epoch_end ? replays_counted_epoch_end(state) : replays_counted_step(step)) {
        // Its evaluation was counted before the crash and did not save (trigger_callback.hpp):
        // dropping the save event keeps that one count. should_evaluate is left alone, so an
        // evaluation the user scheduled still runs, outside the policy.
        pending_checkpoint_evaluation_ = false;
        return;
    }
    control.should_evaluate = true;
    pending_checkpoint_evaluation_ = true;
    trigger_count_ += 1;
}

void TriggerCallback::on_step_end(const TrainerStateView& state, TrainerControl& control) noexcept {
    if (config_.enabled && step_is_scheduled(state.global_step)) {
        // Gate steps join the same native save-event lifecycle as the regular cadence.
        control.should_save = true;
    }
    redirect_save_to_evaluate(control, state, /*at_epoch_end=*/false);
}

void TriggerCallback::on_epoch_end(const TrainerStateView& state, TrainerControl& control) noexcept {
    if (mutants::is_active(Mutant::streak_reset_at_epoch_end) && policy_.state().lower_score_streak > 0) {
        auto drifted = policy_.state_dict();
        drifted["state"]["lower_score_streak"] = 0;
        policy_.load_state_dict(drifted);
    }
    redirect_save_to_evaluate(control, state, /*at_epoch_end=*/true);
}

bool TriggerCallback::consume_checkpoint_evaluation() noexcept {
    const bool pending = pending_checkpoint_evaluation_;
    pending_checkpoint_evaluation_ = false;
    return pending;
}

void TriggerCallback::record_checkpoint_evaluation_decision(const CheckpointEvaluationDecision& decision) {
    last_evaluated_step_ = decision.step;
    if (decision.should_save) {
        if (pending_save_step_ && *pending_save_step_ != decision.step) {
            throw RuntimeError(
                "checkpoint evaluation attempted to schedule a second save before "
                "the prior best checkpoint committed");
        }
        pending_save_step_ = decision.step;
        if (mutants::is_active(Mutant::link_at_evaluation) && is_rank_zero() && config_.output_dir) {
            update_final_checkpoint_link(*fs_, *config_.output_dir, decision.step, config_.save_total_limit);
        }
    }
    if (decision.should_stop) {
        policy_stop_requested_ = true;
    }
}

void TriggerCallback::record_checkpoint_evaluation_decision(const json& decision) {
    record_checkpoint_evaluation_decision(CheckpointEvaluationDecision::from_dict(decision));
}

// ---- train begin: restore, then repair ----------------------------------------------------

void TriggerCallback::on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                                     TrainerControl& control) {
    const bool resuming = state.global_step > 0;
    resumed_run_ = resuming;
    if (resuming || !mutants::is_active(Mutant::refusal_only_on_resume)) {
        refuse_unsafe_training_args(args);
    }
    if (mutants::is_active(Mutant::over_refusal_on_epoch_resume) && resuming &&
        args.save_strategy == "epoch" && args.save_total_limit == 1) {
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot resume with save_strategy=\"epoch\" and save_total_limit=1");
    }
    if (!config_.output_dir && !args.output_dir.empty()) {
        config_.output_dir = args.output_dir;
    }
    is_world_process_zero_ = state.is_world_process_zero;
    if (!mutants::is_active(Mutant::pending_save_persisted)) {
        pending_save_step_.reset();
    }
    policy_stop_requested_ = policy_.state().stop_requested;

    // Load inside the same broadcast envelope as its result: a rank 0 that rejected a corrupt
    // sidecar before a separate broadcast would leave every worker waiting.
    const auto shared = run_on_rank_zero_and_share_outcome(
        *collective_, is_rank_zero(), "sidecar policy restore", [this, &state]() -> json {
            remove_leftover_temp_files();
            restore_own_state_from_checkpoint(state.global_step);
            const bool loaded = load(/*is_world_process_zero=*/true);
            return JsonObject()
                .add("loaded", loaded)
                .add("policy_state", policy_.state_dict())
                .add("trigger_count", trigger_count_)
                .add("last_evaluated_step",
                     last_evaluated_step_ ? json(*last_evaluated_step_) : json(nullptr))
                .build();
        });
    const auto& received = *shared;
    const auto policy_state = received.find("policy_state");
    if (policy_state == received.end() || !policy_state->is_object()) {
        throw RuntimeError("checkpoint evaluation sidecar policy restore received no valid policy state");
    }
    if (is_rank_zero() || !mutants::is_active(Mutant::restored_state_not_shared)) {
        policy_.load_state_dict(*policy_state);
    }
    if (mutants::is_active(Mutant::restored_streak_dropped) && policy_.state().lower_score_streak > 0) {
        auto drifted = policy_.state_dict();
        drifted["state"]["lower_score_streak"] = 0;
        policy_.load_state_dict(drifted);
    }
    if (const auto count = received.find("trigger_count");
        count != received.end() && count->is_number_integer()) {
        trigger_count_ = count->get<std::int64_t>();  // every rank exports the same state
    }
    // Every rank skips the same replayed save events, or the ranks would disagree on whether
    // an evaluation round (and its collectives) happens.
    adopt_replay_horizon(received);

    policy_stop_requested_ = policy_.state().stop_requested;
    if (policy_stop_requested_ && !mutants::is_active(Mutant::stop_not_restored)) {
        // CallbackHandler.on_train_begin cleared this flag before calling us. Restore the
        // durable stop so the resumed job exits without another optimizer step.
        control.should_training_stop = true;
    }
    if (mutants::is_active(Mutant::stop_not_restored)) {
        policy_stop_requested_ = false;
    }
    // A process that died after the native checkpoint write but before on_save left a valid
    // callback state in trainer_state.json: publish its link and sidecar now.
    run_on_rank_zero_and_share_outcome(*collective_, is_rank_zero(), "committed checkpoint artifact recovery",
                                       [this]() -> json {
                                           recover_committed_checkpoint_artifacts();
                                           drop_link_to_lost_checkpoint();
                                           remove_abandoned_sidecar();
                                           return json::object();
                                       });
}

void TriggerCallback::adopt_replay_horizon(const json& restore_outcome) {
    const auto step = restore_outcome.find("last_evaluated_step");
    if (step == restore_outcome.end() || step->is_null()) {
        last_evaluated_step_.reset();  // unknown: skip nothing, as the seed
    } else if (step->is_number_integer()) {
        last_evaluated_step_ = step->get<std::int64_t>();
    } else {
        throw RuntimeError(
            "checkpoint evaluation sidecar policy restore received no valid last evaluated step");
    }
    replay_horizon_ = last_evaluated_step_;
}

bool TriggerCallback::best_checkpoint_is_complete() {
    const auto& best_step = policy_.state().best_step;
    return config_.output_dir && best_step && is_complete_checkpoint(*fs_, *config_.output_dir, *best_step);
}

void TriggerCallback::publish_best_checkpoint() {
    // Link first, then the sidecar: a reader that sees the new sidecar also finds its link.
    const bool sidecar_first = mutants::is_active(Mutant::link_after_sidecar);
    if (sidecar_first) {
        persist(/*is_world_process_zero=*/true);
    }
    update_final_checkpoint_link(*fs_, *config_.output_dir, *policy_.state().best_step,
                                 config_.save_total_limit);
    if (!sidecar_first) {
        persist(/*is_world_process_zero=*/true);
    }
}

void TriggerCallback::recover_committed_checkpoint_artifacts() {
    if (!is_rank_zero() || !policy_.state().best_step || policy_.state().best_is_external) {
        return;
    }
    if (!best_checkpoint_is_complete()) {
        return;
    }
    // The checkpoint may only be complete in the page cache: a process killed between the write
    // of trainer_state.json and its fsync leaves it so. Make it durable before pointing the
    // durable link at it, or a power loss would leave final_checkpoint naming a torn checkpoint.
    if (!mutants::is_active(Mutant::recovery_link_before_fsync)) {
        make_checkpoint_durable(*policy_.state().best_step);
    }
    publish_best_checkpoint();
}

void TriggerCallback::drop_link_to_lost_checkpoint() {
    // Transformers never fsyncs: a power loss inside the save window (rotation has removed the
    // linked best, the new checkpoint is not yet durable) can leave no complete target to
    // republish. A link to nothing misleads every reader, so it goes; the next commit links again.
    if (!is_rank_zero() || !config_.output_dir) {
        return;
    }
    const auto link = join_path(*config_.output_dir, kFinalCheckpointLink);
    if (!fs_->is_symlink(link)) {
        return;
    }
    const auto step = final_checkpoint_step(*fs_, *config_.output_dir);
    if (step && is_complete_checkpoint(*fs_, *config_.output_dir, *step)) {
        return;
    }
    if (step && mutants::is_active(Mutant::dead_link_test_is_dir_only) &&
        fs_->is_dir(join_path(*config_.output_dir, checkpoint_dir_name(*step)))) {
        return;
    }
    fs_->unlink(link);
    fs_->fsync_dir(*config_.output_dir);
}

void TriggerCallback::make_checkpoint_durable(std::int64_t step) {
    // Transformers never fsyncs a checkpoint: every file of it (other ranks' shards too), then
    // its directory and the output directory, before the durable link may name it.
    const auto directory = join_path(*config_.output_dir, checkpoint_dir_name(step));
    if (mutants::is_active(Mutant::link_before_checkpoint_fsync)) {
        fs_->fsync_file(join_path(directory, kTrainerStateName));  // only what recovery had
    } else {
        // One buffer for every entry's path: join_path's text, as neither the directory (joined
        // above) nor an entry's name has a slash to drop.
        std::string path = directory + '/';
        const std::size_t prefix = path.size();
        for (const auto& name : fs_->list_dir(directory)) {
            path.resize(prefix);
            path += name;
            if (!fs_->is_dir(path)) {
                fs_->fsync_file(path);
            }
        }
    }
    fs_->fsync_dir(directory);
    fs_->fsync_dir(*config_.output_dir);
}

// ---- on_save: commit after the native write -----------------------------------------------

void TriggerCallback::on_save(const TrainerStateView& state, TrainerControl& /*control*/) {
    if (!pending_save_step_) {
        return;
    }
    const auto expected_step = *pending_save_step_;
    pending_save_step_.reset();
    if (state.global_step != expected_step) {
        throw RuntimeError("checkpoint evaluation received an unexpected native save event: expected_step=" +
                           std::to_string(expected_step) +
                           ", saved_step=" + std::to_string(state.global_step));
    }
    const bool link_first = mutants::is_active(Mutant::link_before_barrier);
    const bool barrier_skipped = mutants::is_active(Mutant::last_rank_skips_commit_barrier) && resumed_run_ &&
                                 collective_->world_size() > 1 &&
                                 collective_->rank() == collective_->world_size() - 1;
    if (!link_first && !barrier_skipped) {
        // Every rank has finished its own shard and RNG writes once all arrive here; only then
        // may rank 0 point users at the checkpoint.
        collective_->barrier();
    }
    run_on_rank_zero_and_share_outcome(*collective_, is_rank_zero(), "saved checkpoint publication",
                                       [this, expected_step]() -> json {
                                           commit_saved_checkpoint(expected_step);
                                           return json::object();
                                       });
    if (link_first) {
        collective_->barrier();
    }
}

void TriggerCallback::commit_saved_checkpoint(std::int64_t step) {
    if (!is_rank_zero()) {
        return;
    }
    const auto& best_step = policy_.state().best_step;
    if (best_step != step) {
        throw RuntimeError(
            "checkpoint evaluation save commit does not match the policy best step: saved_step=" +
            std::to_string(step) +
            ", best_step=" + (best_step ? std::to_string(*best_step) : std::string("None")));
    }
    if (!best_checkpoint_is_complete()) {
        const auto directory = config_.output_dir ? join_path(*config_.output_dir, checkpoint_dir_name(step))
                                                  : std::string("None");
        throw RuntimeError(
            "checkpoint evaluation expected native Trainer to write the new best checkpoint before "
            "on_save: " +
            directory);
    }
    // After _save_checkpoint, not at evaluation time: native rotation may just have deleted
    // the old target, and the new one exists only now. Durable before the link names it.
    if (!mutants::is_active(Mutant::link_before_checkpoint_fsync)) {
        make_checkpoint_durable(step);
    }
    publish_best_checkpoint();
}

}  // namespace ckpt
