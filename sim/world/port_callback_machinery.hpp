// The stateful-callback machinery of the port (policy/callbacks: the stateful-callbacks pull
// request and the Lightning state_key RFC, with the port's exportable EarlyStoppingCallback), as
// the simulated trainer drives it. A pure forwarder: the trace through it is the port's.
#pragma once

#include "sim/trainer/callback_state_machinery.hpp"

namespace ckpt::sim {

class PortCallbackMachinery final : public CallbackStateMachinery {
  public:
    std::unique_ptr<ExportableState> make_early_stopping(int patience, double threshold,
                                                         bool keyed) const override;
    bool is_early_stopping(const ExportableState& callback) const override;
    void early_stopping_on_evaluate(ExportableState& callback, double metric, bool greater_is_better,
                                    TrainerControl& control) const override;
    nlohmann::json export_states(const std::vector<const ExportableState*>& callbacks) const override;
    nlohmann::json refresh_states(const nlohmann::json& stored,
                                  const std::vector<const ExportableState*>& callbacks,
                                  const nlohmann::json& exported) const override;
    RestoredCallbackList restore(const nlohmann::json& saved,
                                 std::vector<std::unique_ptr<ExportableState>> configured,
                                 const TriggerRebuild& rebuild_trigger) const override;
};

}  // namespace ckpt::sim
