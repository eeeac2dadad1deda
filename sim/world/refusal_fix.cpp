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
    if (names("save_total_limit=1 and")) {
        trainer.save_total_limit = 2;
        return "save_total_limit=2";
    }
    if (names("restore_callback_states_from_checkpoint=True and several")) {
        trainer.restore_callback_states_from_checkpoint = false;
        return "restore_callback_states_from_checkpoint=false";
    }
    if (names("callbacks the checkpoint does not store") && launch.callbacks.resume_change.early_stopping) {
        launch.callbacks.resume_change.early_stopping.reset();
        return "early_stopping callbacks as saved";
    }
    return {};
}

}  // namespace ckpt::sim
