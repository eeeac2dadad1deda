// The stateful-callback machinery the simulated trainer drives, as two interfaces. The trainer
// models when Transformers calls each piece; what they do comes from outside its model:
// - EarlyStoppingCallbacks: the early-stopping callbacks configured beside the trigger callback
//   (Transformers' own, restated in transformers_early_stopping.hpp, or the port's exportable
//   EarlyStoppingCallback, supplied by sim/world);
// - CallbackStateMachinery: the export of TrainerState.stateful_callbacks when the Trainer is
//   built, the refresh before every trainer_state.json and _load_callback_state on resume.
//   Two implementations: the port's (seeds 000 and 002: state_key identity, a changed argument
//   refused; sim/world) and Transformers' own, restated here (transformers_callback_state.hpp).
// Errors are the implementation's (ValueError for the port's).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// What CallbackHandler.on_evaluate hands an early-stopping callback: the evaluation's metrics
// (eval_score is the score, eval_loss its negation), the arguments in force, and
// TrainerState.best_metric as it stands before this evaluation's _determine_best_metric.
struct EvaluationReport {
    double score = 0.0;
    const TrainerOptions& args;
    std::optional<double> best_metric;
};

class EarlyStoppingCallbacks {
  public:
    virtual ~EarlyStoppingCallbacks() = default;

    // An early-stopping callback with this patience and threshold; `keyed` gives it a state_key
    // generated from its arguments, so several of one class are told apart by identity.
    virtual std::unique_ptr<ExportableState> make(int patience, double threshold, bool keyed) const = 0;
    // type(callback)(**args), then its attributes: one rebuilt from a saved {"args", "attributes"}.
    virtual std::unique_ptr<ExportableState> rebuild(const nlohmann::json& saved) const = 0;
    // Whether `callback` is one of the early-stopping callbacks this makes.
    virtual bool is_one(const ExportableState& callback) const = 0;
    // Its on_train_begin, given TrainerState.best_metric as loaded: may throw (Transformers' own
    // asserts on the arguments).
    virtual void on_train_begin(ExportableState& callback, const TrainerOptions& args,
                                std::optional<double> best_metric) const = 0;
    // Its on_evaluate: may set control.should_training_stop.
    virtual void on_evaluate(ExportableState& callback, const EvaluationReport& report,
                             TrainerControl& control) const = 0;
};

struct RestoredCallbackList {
    // The configured list with every restored callback replaced by its rebuilt one, in order.
    std::vector<std::unique_ptr<ExportableState>> callbacks;
    std::vector<std::string> warnings;  // in a deterministic order
};

class CallbackStateMachinery {
  public:
    virtual ~CallbackStateMachinery() = default;

    // Whether this is the code under test (the port's), whose restore is judged, warnings
    // included; Transformers' own is the trainer's model.
    virtual bool under_test() const noexcept = 0;

    // Whether the refresh appends live states to a class stored as a list (Transformers' own,
    // PR #33875 unmerged), in which case the trainer refreshes with transformers_refresh, or
    // rebuilds the whole dict with refresh_states.
    virtual bool refresh_appends_duplicates(const TrainerOptions& trainer) const = 0;
    // TrainerState.stateful_callbacks from the live callbacks (the trainer's control last).
    virtual nlohmann::json export_states(const std::vector<const ExportableState*>& callbacks) const = 0;
    // The refresh before trainer_state.json is written, given what was carried since train start
    // or resume; `exported` is export_states of the same callbacks, already made.
    virtual nlohmann::json refresh_states(const nlohmann::json& stored,
                                          const std::vector<const ExportableState*>& callbacks,
                                          const nlohmann::json& exported) const = 0;

    // Rebuilds a callback of `class_name` from its saved state (the trainer knows its classes);
    // null for a class it does not know.
    using Rebuild = std::function<std::unique_ptr<ExportableState>(const std::string& class_name,
                                                                   const nlohmann::json& saved)>;
    // _load_callback_state over the configured callbacks (the trainer's control last).
    virtual RestoredCallbackList restore(const nlohmann::json& saved,
                                         std::vector<std::unique_ptr<ExportableState>> configured,
                                         const Rebuild& rebuild) const = 0;
};

}  // namespace ckpt::sim
