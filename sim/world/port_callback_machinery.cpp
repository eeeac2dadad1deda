// Forwards each call to policy/callbacks; the trigger callback is rebuilt by the trainer's own
// factory, registered under its class name beside the port's built-in callbacks.
#include "sim/world/port_callback_machinery.hpp"

#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/callbacks/stateful_callbacks.hpp"
#include "policy/formats/saved_trigger_callback.hpp"

namespace ckpt::sim {

std::unique_ptr<ExportableState> PortCallbackMachinery::make_early_stopping(int patience, double threshold,
                                                                            bool keyed) const {
    if (keyed) {
        return std::make_unique<EarlyStoppingCallback>(
            EarlyStoppingCallback::with_generated_state_key(patience, threshold));
    }
    return std::make_unique<EarlyStoppingCallback>(patience, threshold);
}

bool PortCallbackMachinery::is_early_stopping(const ExportableState& callback) const {
    return dynamic_cast<const EarlyStoppingCallback*>(&callback) != nullptr;
}

void PortCallbackMachinery::early_stopping_on_evaluate(ExportableState& callback, double metric,
                                                       bool greater_is_better,
                                                       TrainerControl& control) const {
    dynamic_cast<EarlyStoppingCallback&>(callback).on_evaluate(metric, greater_is_better, control);
}

nlohmann::json PortCallbackMachinery::export_states(
    const std::vector<const ExportableState*>& callbacks) const {
    return export_stateful_callbacks(callbacks);
}

nlohmann::json PortCallbackMachinery::refresh_states(const nlohmann::json& stored,
                                                     const std::vector<const ExportableState*>& callbacks,
                                                     const nlohmann::json& exported) const {
    return refresh_stateful_callbacks(stored, callbacks, &exported);
}

RestoredCallbackList PortCallbackMachinery::restore(const nlohmann::json& saved,
                                                    std::vector<std::unique_ptr<ExportableState>> configured,
                                                    const TriggerRebuild& rebuild_trigger) const {
    auto registry = CallbackFactoryRegistry::with_builtin_callbacks();
    registry.add(std::string(kTriggerCallbackClass), rebuild_trigger);
    auto restored = restore_stateful_callbacks(saved, std::move(configured), registry);
    return {std::move(restored.callbacks), std::move(restored.warnings)};
}

}  // namespace ckpt::sim
