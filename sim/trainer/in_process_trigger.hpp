// The trigger port over the C++ port of the callback (policy/trigger) and its trainer glue
// (run_checkpoint_evaluation_round), in the rank's own fiber. A pure forwarder: the trace of a
// run through it is the trace of the port.
#pragma once

#include <memory>
#include <string>

#include "policy/ports/file_system.hpp"
#include "sim/trainer/trigger_port.hpp"

namespace ckpt::sim {

class InProcessTrigger final : public TriggerPort {
  public:
    InProcessTrigger(TriggerCallback callback, Collective& collective)
        : callback_(std::move(callback)), collective_(collective) {}

    std::string class_name() const override { return callback_.class_name(); }
    nlohmann::json state() const override { return callback_.state(); }

    void on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                        TrainerControl& control) override {
        callback_.on_train_begin(args, state, control);
    }
    void establish_external_baseline(double score) override {
        callback_.policy().establish_external_baseline(score, 0);
    }
    void on_step_end(const TrainerStateView& state, TrainerControl& control,
                     const StepOutlook& /*outlook*/) override {
        callback_.on_step_end(state, control);
    }
    void on_epoch_end(const TrainerStateView& state, TrainerControl& control) override {
        callback_.on_epoch_end(state, control);
    }
    bool consume_checkpoint_evaluation() override { return callback_.consume_checkpoint_evaluation(); }
    void evaluate(TrainerControl& control, double score, std::int64_t step,
                  EvaluationRoundObserver& observer) override {
        run_checkpoint_evaluation_round(collective_, callback_, control, score, step, observer);
    }
    bool commit_pending() override { return callback_.pending_checkpoint_save_step().has_value(); }
    void on_save(const TrainerStateView& state, TrainerControl& control) override {
        callback_.on_save(state, control);
    }
    CheckpointEvaluationState reported_policy_state() const override { return callback_.policy().state(); }

  private:
    TriggerCallback callback_;
    Collective& collective_;
};

// Builds the C++ port on the job's disk. `temp_file_tag` names its temp files (fixed, so traces
// are the same in every process).
class InProcessTriggerFactory final : public TriggerFactory {
  public:
    InProcessTriggerFactory(FileSystem& fs, std::string temp_file_tag)
        : fs_(fs), temp_file_tag_(std::move(temp_file_tag)) {}

    std::unique_ptr<TriggerPort> build(const TriggerCallbackConfig& config,
                                       SimCollective& collective) override {
        return std::make_unique<InProcessTrigger>(TriggerCallback(config, fs_, collective), collective);
    }
    std::unique_ptr<TriggerPort> rebuild(const nlohmann::json& saved, SimCollective& collective) override {
        return std::make_unique<InProcessTrigger>(
            TriggerCallback::from_state(saved, fs_, collective, temp_file_tag_), collective);
    }

  private:
    FileSystem& fs_;
    std::string temp_file_tag_;
};

}  // namespace ckpt::sim
