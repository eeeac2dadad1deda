// Turns a policy decision into the trainer's control flags: veto a non-improving save, request a
// stop once patience ran out, and always clear should_evaluate. Depends on callbacks/ and core/.
#pragma once

#include <nlohmann/json.hpp>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/core/checkpoint_evaluation_decision.hpp"

namespace ckpt {

// Applies a policy decision to the trainer's control flags: a non-improving evaluation vetoes
// the save event it came from, and an exhausted patience requests a clean stop.
//
// should_evaluate is always cleared: the in-memory evaluation does not go through Trainer's own
// evaluate path, and without this the epoch-end _maybe_log_save_evaluate would evaluate the
// same save event a second time (especially on the final step).
TrainerControl& apply_checkpoint_evaluation_decision(TrainerControl& control,
                                                     const CheckpointEvaluationDecision& decision) noexcept;
// The same for a decision received as a broadcast mapping; throws ValueError if malformed.
TrainerControl& apply_checkpoint_evaluation_decision(TrainerControl& control, const nlohmann::json& decision);

}  // namespace ckpt
