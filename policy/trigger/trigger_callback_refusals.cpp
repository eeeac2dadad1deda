// The training arguments the callback refuses at on_train_begin, each because Transformers would
// then keep or save another checkpoint than the callback's, or restore states it cannot trust;
// every message names the setting and its fix.
#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

using mutants::Mutant;

void TriggerCallback::refuse_unsafe_training_args(const TrainingArguments& args) const {
    if (args.save_strategy == "best" && !mutants::is_active(Mutant::save_strategy_best_accepted)) {
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_strategy=\"best\": Transformers then saves only on "
            "its own new best metric, never on this callback's save events; use save_strategy=\"steps\" "
            "or \"epoch\"");
    }
    const bool trainer_tracks_best = args.load_best_model_at_end || !args.metric_for_best_model.empty();
    const bool same_best = args.metric_for_best_model == config_.score_metric && args.greater_is_better;
    if (trainer_tracks_best && !same_best && args.save_total_limit >= 1 &&
        !mutants::is_active(Mutant::trainer_best_cleanup_accepted)) {
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with metric_for_best_model=\"" + args.metric_for_best_model +
            "\" beside save_total_limit: Transformers' rotation keeps its own best_model_checkpoint, "
            "another than final_checkpoint's target, which a crash can make the callback relink "
            "to; set metric_for_best_model=\"" +
            config_.score_metric + "\" with greater_is_better=True, or unset it");
    }
    if (trainer_tracks_best && args.save_total_limit == 1 &&
        !mutants::is_active(Mutant::trainer_best_cleanup_accepted)) {
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_total_limit=1 and metric_for_best_model or "
            "load_best_model_at_end: Transformers deletes every checkpoint but its own "
            "best_model_checkpoint, "
            "which can be another than final_checkpoint's target; set save_total_limit >= 2 (>= 3 beside "
            "eval_strategy \"steps\" or \"epoch\") or unset metric_for_best_model and "
            "load_best_model_at_end");
    }
    // Finding 24: an evaluation of the trainer's own can become its best at a step nothing saved, so
    // best_model_checkpoint stays on an older checkpoint. Rotation keeps that one and the newest, and
    // under a limit of 2 deletes final_checkpoint's target before the new best is committed (under
    // save_on_each_node another node's rotation does so before rank 0 writes). A limit of 3 keeps
    // the stale best, the target and the new checkpoint: the callback saves only on its own new best.
    if (trainer_tracks_best && args.eval_strategy != "no" && args.save_total_limit == 2 &&
        !mutants::is_active(Mutant::stale_trainer_best_accepted)) {
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with save_total_limit=2 beside eval_strategy=\"" +
            args.eval_strategy +
            "\" and the trainer's own best: an evaluation of the trainer's own can leave "
            "best_model_checkpoint "
            "on an older checkpoint, which rotation keeps beside the newest, deleting final_checkpoint's "
            "target before the new best is committed; set save_total_limit >= 3, or eval_strategy=\"no\"");
    }
    if (args.restore_callback_states_from_checkpoint &&
        (args.refresh_appends_duplicate_states || mutants::is_active(Mutant::refusal_rule_ignores_refresh)) &&
        !args.stateful_classes_with_several_callbacks.empty() &&
        !mutants::is_active(Mutant::appended_duplicates_restored)) {
        const auto& name = args.stateful_classes_with_several_callbacks.front();
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot run with restore_callback_states_from_checkpoint=True and "
            "several " +
            name + " callbacks: Transformers appends every save's states to stateful_callbacks[\"" + name +
            "\"] (PR #33875) and a resume restores the first ones, saved at the start of training; set "
            "restore_callback_states_from_checkpoint=False (this callback then restores its own state) or "
            "pass one " +
            name + " callback");
    }
    if (args.refresh_appends_duplicate_states && !args.stateful_classes_the_checkpoint_lacks.empty() &&
        !mutants::is_active(Mutant::added_callback_resume_accepted)) {
        const auto& name = args.stateful_classes_the_checkpoint_lacks.front();
        throw TrainingArgumentsRefused(
            "checkpoint evaluation cannot resume with " + name +
            " callbacks the checkpoint does not store: Transformers' _save_checkpoint refreshes "
            "state.stateful_callbacks[\"" +
            name +
            "\"] and raises KeyError on rank 0 at the first save, after the weights, while the other ranks "
            "wait; resume with the callbacks the checkpoint was saved with, or refresh with this package's "
            "refresh_stateful_callbacks, which re-exports stateful_callbacks from the live callbacks");
    }
}

}  // namespace ckpt
