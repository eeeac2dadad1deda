// Transformers' EarlyStoppingCallback, as its contract in the header states it.
#include "sim/trainer/transformers_early_stopping.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/trainer/trainer_best.hpp"

namespace ckpt::sim {

using nlohmann::json;

TransformersEarlyStopping TransformersEarlyStopping::rebuilt(const json& saved) {
    const auto& args = saved.at("args");
    for (const auto& [name, value] : args.items()) {  // __init__'s two keyword parameters
        if (name != "early_stopping_patience" && name != "early_stopping_threshold") {
            throw std::invalid_argument(
                "EarlyStoppingCallback.__init__() got an unexpected keyword argument '" + name + "'");
        }
    }
    TransformersEarlyStopping callback(args.value("early_stopping_patience", 1),
                                       args.value("early_stopping_threshold", 0.0));
    const auto& attributes = saved.at("attributes");
    callback.counter_ = attributes.value("early_stopping_patience_counter", std::int64_t{0});
    return callback;
}

json TransformersEarlyStopping::state() const {
    json args = json::object();
    args["early_stopping_patience"] = patience_;
    args["early_stopping_threshold"] = threshold_;
    json attributes = json::object();
    attributes["early_stopping_patience_counter"] = counter_;
    json out = json::object();
    out["args"] = std::move(args);
    out["attributes"] = std::move(attributes);
    return out;
}

void TransformersEarlyStopping::on_train_begin(const TrainerOptions& args) {
    if (args.tracked_metric().empty()) {
        throw TransformersAssertionError(
            "EarlyStoppingCallback requires metric_for_best_model to be defined");
    }
    if (args.eval_strategy == EvalStrategy::no) {
        throw TransformersAssertionError("EarlyStoppingCallback requires IntervalStrategy of steps or epoch");
    }
}

bool TransformersEarlyStopping::on_evaluate(const EvaluationReport& report, TrainerControl& control) {
    const auto metric = report.args.tracked_metric();
    if (metric.empty()) {
        return false;  // "did not find eval_...": a warning, and the check is skipped
    }
    const double value = reported_metric(metric, report.score);
    const auto& best = report.best_metric;
    // np.greater / np.less: false for NaN either side.
    const bool better = best && (report.args.tracked_greater_is_better() ? value > *best : value < *best);
    if (!best || (better && std::fabs(value - *best) > threshold_)) {
        counter_ = 0;
    } else {
        ++counter_;
    }
    if (counter_ >= patience_) {
        control.should_training_stop = true;
        return true;
    }
    return false;
}

std::unique_ptr<ExportableState> TransformersEarlyStoppingCallbacks::make(int patience, double threshold,
                                                                          bool keyed) const {
    if (keyed) {
        throw std::invalid_argument("Transformers' EarlyStoppingCallback has no state_key");
    }
    return std::make_unique<TransformersEarlyStopping>(patience, threshold);
}

std::unique_ptr<ExportableState> TransformersEarlyStoppingCallbacks::rebuild(const json& saved) const {
    return std::make_unique<TransformersEarlyStopping>(TransformersEarlyStopping::rebuilt(saved));
}

bool TransformersEarlyStoppingCallbacks::is_one(const ExportableState& callback) const {
    return dynamic_cast<const TransformersEarlyStopping*>(&callback) != nullptr;
}

void TransformersEarlyStoppingCallbacks::on_train_begin(ExportableState& /*callback*/,
                                                        const TrainerOptions& args,
                                                        std::optional<double> /*best_metric*/) const {
    TransformersEarlyStopping::on_train_begin(args);
}

void TransformersEarlyStoppingCallbacks::on_evaluate(ExportableState& callback,
                                                     const EvaluationReport& report,
                                                     TrainerControl& control) const {
    dynamic_cast<TransformersEarlyStopping&>(callback).on_evaluate(report, control);
}

}  // namespace ckpt::sim
