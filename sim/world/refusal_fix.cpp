// The fixes of refusal_fix.hpp, matched on the phrase of the message that names each setting.
#include "sim/world/refusal_fix.hpp"

namespace ckpt::sim {

std::string_view apply_fix_named_in(std::string_view refusal, Scenario& launch) {
    auto& trainer = launch.trainer;
    const auto names = [&](std::string_view phrase) {
        return refusal.find(phrase) != std::string_view::npos;
    };
    if (names("save_strategy=\"best\"")) {
        trainer.save_strategy = SaveStrategy::steps;
        return "save_strategy=steps";
    }
    if (names("beside save_total_limit")) {
        trainer.metric_for_best_model = "score";
        trainer.greater_is_better = true;
        return "metric_for_best_model=score";
    }
    if (names("save_total_limit=2 beside eval_strategy")) {
        trainer.save_total_limit = 3;
        return "save_total_limit=3";
    }
    if (names("save_total_limit=1 and")) {
        // The nearest accepted limit: 3 beside the trainer's own evaluations (finding 24).
        trainer.save_total_limit = trainer.eval_strategy == EvalStrategy::no ? 2 : 3;
        return trainer.save_total_limit == 2 ? "save_total_limit=2" : "save_total_limit=3";
    }
    if (names("restore_callback_states_from_checkpoint=True and several")) {
        trainer.restore_callback_states_from_checkpoint = false;
        return "restore_callback_states_from_checkpoint=false";
    }
    // Transformers' own EarlyStoppingCallback asserts on its arguments: the user sets the callback's
    // metric (the nearest configuration the callback accepts) or turns evaluation on, following the
    // save strategy as load_best_model_at_end requires.
    if (names("requires metric_for_best_model to be defined")) {
        trainer.metric_for_best_model = "score";
        return "metric_for_best_model=score";
    }
    if (names("requires IntervalStrategy of steps or epoch")) {
        if (trainer.save_strategy == SaveStrategy::epoch) {
            trainer.eval_strategy = EvalStrategy::epoch;
            return "eval_strategy=epoch";
        }
        trainer.eval_strategy = EvalStrategy::steps;
        if (trainer.load_best_model_at_end) {
            trainer.eval_steps = trainer.save_steps;
        }
        return "eval_strategy=steps";
    }
    if (names("callbacks the checkpoint does not store") && launch.callbacks.resume_change.early_stopping) {
        launch.callbacks.resume_change.early_stopping.reset();
        return "early_stopping callbacks as saved";
    }
    return {};
}

}  // namespace ckpt::sim
