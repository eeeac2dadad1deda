// The port's stateful-callback machinery (policy/callbacks: the stateful-callbacks pull request
// and the Lightning state_key RFC, with the port's exportable EarlyStoppingCallback), as the
// simulated trainer drives it. Pure forwarders: the trace through them is the port's.
#pragma once

#include "policy/callbacks/stateful_callbacks.hpp"
#include "sim/trainer/callback_state_machinery.hpp"

namespace ckpt::sim {

class PortEarlyStoppingCallbacks final : public EarlyStoppingCallbacks {
  public:
    std::unique_ptr<ExportableState> make(int patience, double threshold, bool keyed) const override;
    std::unique_ptr<ExportableState> rebuild(const nlohmann::json& saved) const override;
    bool is_one(const ExportableState& callback) const override;
    // TrainerState.best_metric in the score's terms (the loss negated), when it tracks the score's
    // order, for a callback restored from Transformers' own layout.
    void on_train_begin(ExportableState& callback, const TrainerOptions& args,
                        std::optional<double> best_metric) const override;
    // The port's keeps its own best of the score (greater is better), whatever the arguments say.
    void on_evaluate(ExportableState& callback, const EvaluationReport& report,
                     TrainerControl& control) const override;
};

class PortCallbackMachinery final : public CallbackStateMachinery {
  public:
    bool under_test() const noexcept override { return true; }
    // The scenario chooses: the port's rebuilding refresh, or Transformers' appending one.
    bool refresh_appends_duplicates(const TrainerOptions& trainer) const override {
        return trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append;
    }
    nlohmann::json export_states(const std::vector<const ExportableState*>& callbacks) const override {
        return export_stateful_callbacks(callbacks);
    }
    nlohmann::json refresh_states(const nlohmann::json& stored,
                                  const std::vector<const ExportableState*>& callbacks,
                                  const nlohmann::json& exported) const override {
        return refresh_stateful_callbacks(stored, callbacks, &exported);
    }
    RestoredCallbackList restore(const nlohmann::json& saved,
                                 std::vector<std::unique_ptr<ExportableState>> configured,
                                 const Rebuild& rebuild) const override;
};

}  // namespace ckpt::sim
