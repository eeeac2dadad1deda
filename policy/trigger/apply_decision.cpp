// The flag updates, and the broadcast form that validates the payload first (ValueError), so a
// malformed decision changes no flag.
#include "policy/trigger/apply_decision.hpp"

namespace ckpt {

TrainerControl& apply_checkpoint_evaluation_decision(TrainerControl& control,
                                                     const CheckpointEvaluationDecision& decision) noexcept {
    control.should_save = decision.should_save;
    control.should_evaluate = false;
    if (decision.should_stop) {
        control.should_training_stop = true;
    }
    return control;
}

TrainerControl& apply_checkpoint_evaluation_decision(TrainerControl& control,
                                                     const nlohmann::json& decision) {
    return apply_checkpoint_evaluation_decision(control, CheckpointEvaluationDecision::from_dict(decision));
}

}  // namespace ckpt
