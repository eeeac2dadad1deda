// Forwards each call to policy/callbacks. The restore's factories are the trainer's own rebuild
// for every class it configures, registered by name in the port's registry.
#include "sim/world/port_callback_machinery.hpp"

#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/formats/saved_trigger_callback.hpp"

namespace ckpt::sim {

std::unique_ptr<ExportableState> PortEarlyStoppingCallbacks::make(int patience, double threshold,
                                                                  bool keyed) const {
    if (keyed) {
        return std::make_unique<EarlyStoppingCallback>(
            EarlyStoppingCallback::with_generated_state_key(patience, threshold));
    }
    return std::make_unique<EarlyStoppingCallback>(patience, threshold);
}

std::unique_ptr<ExportableState> PortEarlyStoppingCallbacks::rebuild(const nlohmann::json& saved) const {
    return std::make_unique<EarlyStoppingCallback>(EarlyStoppingCallback::from_state(saved));
}

bool PortEarlyStoppingCallbacks::is_one(const ExportableState& callback) const {
    return dynamic_cast<const EarlyStoppingCallback*>(&callback) != nullptr;
}

void PortEarlyStoppingCallbacks::on_evaluate(ExportableState& callback, const EvaluationReport& report,
                                             TrainerControl& control) const {
    dynamic_cast<EarlyStoppingCallback&>(callback).on_evaluate(report.score, /*greater_is_better=*/true,
                                                               control);
}

void PortEarlyStoppingCallbacks::on_train_begin(ExportableState& callback, const TrainerOptions& args,
                                                std::optional<double> best_metric) const {
    const auto metric = args.tracked_metric();
    const bool greater = args.tracked_greater_is_better();
    std::optional<double> best_score;
    if (best_metric && metric == "score" && greater) {
        best_score = *best_metric;
    } else if (best_metric && metric == "loss" && !greater) {
        best_score = -*best_metric;
    }
    dynamic_cast<EarlyStoppingCallback&>(callback).adopt_trainer_best_metric(best_score);
}

RestoredCallbackList PortCallbackMachinery::restore(const nlohmann::json& saved,
                                                    std::vector<std::unique_ptr<ExportableState>> configured,
                                                    const Rebuild& rebuild) const {
    CallbackFactoryRegistry registry;
    const std::string classes[] = {"TrainerControl", EarlyStoppingCallback::kClassName,
                                   std::string(kTriggerCallbackClass)};
    for (const auto& class_name : classes) {
        registry.add(class_name, [rebuild, class_name](const nlohmann::json& state) {
            return rebuild(class_name, state);
        });
    }
    auto restored = restore_stateful_callbacks(saved, std::move(configured), registry);
    return {std::move(restored.callbacks), std::move(restored.warnings)};
}

}  // namespace ckpt::sim
