#pragma once

// One distributed checkpoint evaluation, as every rank runs it: rank 0 decides inside the
// shared-outcome envelope, every rank adopts rank 0's decision and state, applies it to its
// control and records it in the trigger callback, and a lower score (no save) is persisted in
// a second envelope. An observer sees each moment, so a trainer can trace and check it there.
// Depends on the ports, core and callbacks, and the trigger callback.

#include <cstdint>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "policy/ports/collective.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

// The moments of a round, in the order they happen. Every hook defaults to nothing.
class EvaluationRoundObserver {
  public:
    virtual ~EvaluationRoundObserver() = default;
    // Every rank, before it enters the rank-zero envelope named `operation` (a static string).
    virtual void before_rank_zero_outcome(const char* /*operation*/) {}
    // Rank 0 only, once the decision is shared: the state before it, the decision, the state after.
    virtual void on_decision(const CheckpointEvaluationState& /*prior*/,
                             const CheckpointEvaluationDecision& /*decision*/,
                             const CheckpointEvaluationState& /*after*/) {}
    // Every rank, once it holds rank 0's policy state.
    virtual void on_rank_state(const CheckpointEvaluationState& /*state*/) {}
    // Every rank, before the decision reaches the control (other callbacks' on_evaluate).
    virtual void before_apply(TrainerControl& /*control*/) {}
    // Every rank whose decision requests the stop, once it is applied and recorded.
    virtual void on_stop_in_force() {}
    // Every rank, after the decision is applied and recorded, before any persist.
    virtual void after_recorded(const CheckpointEvaluationDecision& /*decision*/) {}
    // Rank 0 only, after the lower score was persisted in the sidecar.
    virtual void after_persist(const CheckpointEvaluationState& /*state*/) {}
};

// Runs the round for `score` at `step` on this rank and returns the shared decision. A
// rank-zero failure raises the same RuntimeError on every rank (rank_zero_outcome.hpp).
CheckpointEvaluationDecision run_checkpoint_evaluation_round(Collective& collective, TriggerCallback& trigger,
                                                             TrainerControl& control, double score,
                                                             std::int64_t step,
                                                             EvaluationRoundObserver& observer);

}  // namespace ckpt
