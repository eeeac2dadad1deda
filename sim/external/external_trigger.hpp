// The trigger port over an external callback process: each trainer call becomes one protocol
// call (docs/callback-protocol.md) whose returned control replaces the trainer's, as
// Transformers' CallbackHandler does. The trainer glue (decide, share, apply, record, persist a
// lower score) runs in the process's binding; its notes reach the round's observer for the
// trace and the fault plan's aim. Owns nothing: the rank's session outlives every trigger the
// trainer builds and rebuilds on it.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/external/callback_session.hpp"
#include "sim/trainer/trigger_port.hpp"

namespace ckpt::sim {

// What the trainer knows beyond TrainingArguments' fields the port reads: the schedule fields a
// Python callback may read from `args`, and the epoch length for `state.epoch`.
struct ExternalTrainerFacts {
    nlohmann::json arguments;  // save_steps, eval_strategy, eval_steps, logging_steps, max_steps
    std::int64_t max_steps = 0;
    std::int64_t steps_per_epoch = 1;
};

class ExternalTrigger final : public TriggerPort {
  public:
    ExternalTrigger(CallbackSession& session, SimCollective& collective, const ExternalTrainerFacts& facts)
        : session_(&session), collective_(collective), facts_(facts) {}

    void construct(const TriggerCallbackConfig& config);
    void restore(const nlohmann::json& saved);

    std::string class_name() const override { return session_->class_name(); }
    nlohmann::json state() const override;

    void on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                        TrainerControl& control) override;
    void establish_external_baseline(double score) override;
    void on_step_end(const TrainerStateView& state, TrainerControl& control,
                     const StepOutlook& outlook) override;
    void on_epoch_end(const TrainerStateView& state, TrainerControl& control) override;
    bool consume_checkpoint_evaluation() override;
    void evaluate(TrainerControl& control, double score, std::int64_t step,
                  EvaluationRoundObserver& observer) override;
    bool commit_pending() override;
    void on_save(const TrainerStateView& state, TrainerControl& control) override;
    void on_rank_finished() override { session_->shutdown(); }
    CheckpointEvaluationState reported_policy_state() const override { return session_->reported_state(); }

  private:
    nlohmann::json state_view(const TrainerStateView& state) const;
    void event(const char* name, nlohmann::json fields, const TrainerStateView& state,
               TrainerControl& control, std::vector<nlohmann::json> ahead = {});

    CallbackSession* session_;
    SimCollective& collective_;
    const ExternalTrainerFacts& facts_;
};

}  // namespace ckpt::sim
