// Transformers' own EarlyStoppingCallback (trainer_callback.py, v4.5x and v5), restated from its
// behaviour, never from the port's (policy/callbacks/early_stopping_callback.hpp keeps a best of
// its own; this one does not):
// - on_train_begin asserts that metric_for_best_model is set (after TrainingArguments' post-init,
//   which sets "loss" under load_best_model_at_end) and that eval_strategy is not "no". Without
//   load_best_model_at_end it only warns (older releases asserted that too);
// - on_evaluate reads metrics["eval_" + metric_for_best_model] and compares it with
//   TrainerState.best_metric, which _determine_best_metric updates only after every callback's
//   on_evaluate: no best yet, or better by greater_is_better and by more than
//   early_stopping_threshold in absolute value, resets the counter; anything else (NaN too) adds
//   one. The counter reaching early_stopping_patience sets should_training_stop;
// - state() holds its two arguments and the counter, nothing else; a restore is
//   type(cb)(**args) then setattr of each attribute, silent about anything.
// Errors: the assertions throw TransformersAssertionError with Transformers' messages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"
#include "sim/trainer/callback_state_machinery.hpp"

namespace ckpt::sim {

// Python's AssertionError, raised by Transformers' own code on every rank alike.
class TransformersAssertionError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class TransformersEarlyStopping final : public ExportableState {
  public:
    static constexpr const char* kClassName = "EarlyStoppingCallback";

    // Transformers' defaults: patience 1, threshold 0.0. Like Transformers, it checks nothing.
    explicit TransformersEarlyStopping(int early_stopping_patience = 1, double early_stopping_threshold = 0.0)
        : patience_(early_stopping_patience), threshold_(early_stopping_threshold) {}
    // type(cb)(**saved["args"]), then every saved attribute set as it is. A saved argument that
    // is not one of __init__'s two parameters fails as Python's TypeError does
    // (std::invalid_argument naming it).
    static TransformersEarlyStopping rebuilt(const nlohmann::json& saved);

    std::string class_name() const override { return kClassName; }
    nlohmann::json state() const override;

    static void on_train_begin(const TrainerOptions& args);
    // Returns whether it asked the trainer to stop.
    bool on_evaluate(const EvaluationReport& report, TrainerControl& control);

    int early_stopping_patience() const noexcept { return patience_; }
    double early_stopping_threshold() const noexcept { return threshold_; }
    std::int64_t early_stopping_patience_counter() const noexcept { return counter_; }

  private:
    int patience_;
    double threshold_;
    std::int64_t counter_ = 0;
};

class TransformersEarlyStoppingCallbacks final : public EarlyStoppingCallbacks {
  public:
    // Transformers' callback has no state_key: `keyed` cannot be honoured (the scenario refuses it).
    std::unique_ptr<ExportableState> make(int patience, double threshold, bool keyed) const override;
    std::unique_ptr<ExportableState> rebuild(const nlohmann::json& saved) const override;
    bool is_one(const ExportableState& callback) const override;
    void on_train_begin(ExportableState& callback, const TrainerOptions& args,
                        std::optional<double> best_metric) const override;
    void on_evaluate(ExportableState& callback, const EvaluationReport& report,
                     TrainerControl& control) const override;
};

}  // namespace ckpt::sim
