// The trainer's step schedule read ahead: the steps the loop will run after the current one with
// no other call of the callback between them (the StepOutlook an external callback runs ahead
// on), from DefaultFlowCallback's flags (RankTrainer::default_flow). Pure reads of the scenario.
#include "sim/trainer/rank_trainer.hpp"

namespace ckpt::sim {

// training_loop, read ahead: after a step whose control asks for nothing and that ends no
// epoch, maybe_log_save_evaluate calls nobody, the next on_step_begin clears log, evaluate and
// save, and DefaultFlowCallback sets the next step's flags.
std::vector<PlannedStep> RankTrainer::plain_steps_after(const TrainerControl& returned,
                                                        std::size_t limit) const {
    const auto& s = job_.scenario;
    const auto followed_by_another_call = [&](std::int64_t step, const TrainerControl& control) {
        return control.should_evaluate || control.should_save || control.should_training_stop ||
               control.should_epoch_stop || step % s.trainer.steps_per_epoch == 0 ||
               step >= s.trainer.max_steps;
    };
    std::vector<PlannedStep> steps;
    TrainerControl control = returned;
    for (std::int64_t step = global_step_;
         steps.size() < limit && !followed_by_another_call(step, control);) {
        control.should_log = false;
        control.should_evaluate = false;
        control.should_save = false;
        control = default_flow(++step, control);
        steps.push_back({step, control});
    }
    return steps;
}

}  // namespace ckpt::sim
