// The stateful-callback machinery the simulated trainer drives, as an interface: the
// early-stopping callbacks it configures beside the trigger callback, the export of
// TrainerState.stateful_callbacks when the Trainer is built, the refresh before every
// trainer_state.json and _load_callback_state on resume. The trainer models when Transformers
// calls each one; what they do is the code under test (the port of the stateful-callbacks pull
// request and the Lightning state_key RFC), supplied from outside sim/trainer so that the
// simulated Transformers borrows none of it. Errors are the implementation's (ValueError for
// the port's).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt::sim {

struct RestoredCallbackList {
    // The configured list with every restored callback replaced by its rebuilt one, in order.
    std::vector<std::unique_ptr<ExportableState>> callbacks;
    std::vector<std::string> warnings;  // in a deterministic order
};

class CallbackStateMachinery {
  public:
    virtual ~CallbackStateMachinery() = default;

    // An early-stopping callback with this patience and threshold; `keyed` gives it a state_key
    // generated from its arguments, so several of one class are told apart by identity.
    virtual std::unique_ptr<ExportableState> make_early_stopping(int patience, double threshold,
                                                                 bool keyed) const = 0;
    // Whether `callback` is one of the early-stopping callbacks this machinery makes.
    virtual bool is_early_stopping(const ExportableState& callback) const = 0;
    // Its on_evaluate with the evaluation's metric: may set control.should_training_stop.
    virtual void early_stopping_on_evaluate(ExportableState& callback, double metric, bool greater_is_better,
                                            TrainerControl& control) const = 0;

    // TrainerState.stateful_callbacks from the live callbacks (the trainer's control last).
    virtual nlohmann::json export_states(const std::vector<const ExportableState*>& callbacks) const = 0;
    // The refresh before trainer_state.json is written, given what was carried since train start
    // or resume; `exported` is export_states of the same callbacks, already made.
    virtual nlohmann::json refresh_states(const nlohmann::json& stored,
                                          const std::vector<const ExportableState*>& callbacks,
                                          const nlohmann::json& exported) const = 0;

    // Rebuilds the trigger callback from its saved state (the trainer's trigger factory).
    using TriggerRebuild = std::function<std::unique_ptr<ExportableState>(const nlohmann::json& saved)>;
    // _load_callback_state over the configured callbacks (the trainer's control last).
    virtual RestoredCallbackList restore(const nlohmann::json& saved,
                                         std::vector<std::unique_ptr<ExportableState>> configured,
                                         const TriggerRebuild& rebuild_trigger) const = 0;
};

}  // namespace ckpt::sim
