// The seam between the simulated trainer and the trigger callback it drives: every call the
// trainer makes of the callback, and the factory that builds one per rank. Two implementations:
// the in-process C++ port (in_process_trigger.hpp) and a proxy to a callback in another process
// (sim/external). The trainer learns nothing from either beyond what a real Trainer would: the
// control flags, the exceptions, and the exported state() it saves in trainer_state.json.
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"
#include "policy/callbacks/trainer_types.hpp"
#include "policy/trigger/evaluation_round.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "sim/ranks/sim_collective.hpp"
#include "sim/trainer/step_outlook.hpp"

namespace ckpt::sim {

// The trigger callback as the trainer drives it. Every call may throw what the callback raises.
class TriggerPort : public ExportableState {
  public:
    virtual void on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                                TrainerControl& control) = 0;
    // The policy's establish_external_baseline at step 0 (the trainer's step-zero evaluation).
    virtual void establish_external_baseline(double score) = 0;
    // `outlook` says which on_step_end calls follow this one if it leaves the control unchanged.
    virtual void on_step_end(const TrainerStateView& state, TrainerControl& control,
                             const StepOutlook& outlook) = 0;
    virtual void on_epoch_end(const TrainerStateView& state, TrainerControl& control) = 0;
    // Whether the evaluation the control asks for is the callback's (and clears that).
    virtual bool consume_checkpoint_evaluation() = 0;
    // The trainer's glue for one checkpoint evaluation on this rank: decide, share, apply, record
    // and persist a lower score, reporting its moments to `observer` (trace and fault aim only).
    virtual void evaluate(TrainerControl& control, double score, std::int64_t step,
                          EvaluationRoundObserver& observer) = 0;
    // Whether a saving decision waits for this on_save to commit it.
    virtual bool commit_pending() = 0;
    virtual void on_save(const TrainerStateView& state, TrainerControl& control) = 0;
    // The rank's training ended normally (the process of an external callback may exit cleanly).
    virtual void on_rank_finished() {}
    // What the callback reports of its policy, for the trace only: no property reads it.
    virtual CheckpointEvaluationState reported_policy_state() const = 0;
};

// Builds the trigger callback of one rank of one incarnation. `config` is the configuration in
// force; `saved` a state() exported before, rebuilt as Transformers' _load_callback_state does.
class TriggerFactory {
  public:
    virtual ~TriggerFactory() = default;
    virtual std::unique_ptr<TriggerPort> build(const TriggerCallbackConfig& config,
                                               SimCollective& collective) = 0;
    virtual std::unique_ptr<TriggerPort> rebuild(const nlohmann::json& saved, SimCollective& collective) = 0;
};

}  // namespace ckpt::sim
