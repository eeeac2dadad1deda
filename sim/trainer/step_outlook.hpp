// What the trainer will ask of the trigger callback after the on_step_end it is making, when that
// call hands the control back as it found it: the on_step_end calls of the following steps that
// come with no other call of the callback between them, each with the step and the control the
// trainer will hand it. The list ends at the first of those steps after which the trainer calls
// the callback for something else (DefaultFlowCallback asks for an evaluation, a save or the
// stop; the epoch ends), and it is empty when the current step itself is such a step.
//
// Only a trigger whose calls cost a round trip reads it (sim/external runs those calls ahead and
// checks each against the call the trainer really makes); the trainer's path does not depend on
// whether anyone asked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "policy/callbacks/trainer_control.hpp"

namespace ckpt::sim {

struct PlannedStep {
    std::int64_t global_step = 0;
    TrainerControl control;  // what on_step_end will be handed
};

class StepOutlook {
  public:
    virtual ~StepOutlook() = default;
    // At most `limit` steps. `returned` is the control the current on_step_end would hand back.
    virtual std::vector<PlannedStep> plain_steps_after(const TrainerControl& returned,
                                                       std::size_t limit) const = 0;
};

}  // namespace ckpt::sim
