// EarlyStoppingCallback's verdicts and its restore. A mistyped or out-of-range field of a saved
// state is a ValueError that names it; a missing attribute keeps its default, as setattr would.
#include "policy/callbacks/early_stopping_callback.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/base/json_object.hpp"
#include "policy/base/mutants.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {

namespace {

constexpr const char* kPatienceArg = "early_stopping_patience";
constexpr const char* kThresholdArg = "early_stopping_threshold";
constexpr const char* kCounterAttribute = "early_stopping_patience_counter";
constexpr const char* kBestMetricAttribute = "best_metric";

std::string where(const char* section, const char* name) {
    return std::string("EarlyStoppingCallback state: ") + section + "." + name;
}

const nlohmann::json* member(const nlohmann::json& object, const char* name) {
    const auto found = object.find(name);
    return found == object.end() || found->is_null() ? nullptr : &*found;
}

int integer_in(const nlohmann::json& value, const std::string& field) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < std::numeric_limits<int>::min() ||
        value.get<std::int64_t>() > std::numeric_limits<int>::max()) {
        throw ValueError(field + " must be an integer, got " + value.dump());
    }
    return value.get<int>();
}

double number_in(const nlohmann::json& value, const std::string& field) {
    if (!value.is_number()) {
        throw ValueError(field + " must be a number, got " + value.dump());
    }
    return value.get<double>();
}

const nlohmann::json& section_of(const nlohmann::json& state, const char* name) {
    static const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json* section = member(state, name);
    if (section == nullptr) {
        return empty;
    }
    if (!section->is_object()) {
        throw ValueError(std::string("EarlyStoppingCallback state: ") + name +
                         " must be a JSON object, got " + section->dump());
    }
    return *section;
}

}  // namespace

EarlyStoppingCallback::EarlyStoppingCallback(int early_stopping_patience, double early_stopping_threshold,
                                             std::optional<std::string> state_key)
    : patience_(early_stopping_patience),
      threshold_(early_stopping_threshold),
      state_key_(std::move(state_key)) {
    // Transformers accepts anything here and fails later, or never stops; a resume that
    // rebuilds the callback from edited args deserves an error that names the argument.
    if (patience_ <= 0) {
        throw ValueError("early_stopping_patience must be a positive integer, got " +
                         std::to_string(patience_));
    }
    if (!std::isfinite(threshold_) || threshold_ < 0.0) {
        throw ValueError("early_stopping_threshold must be a finite number >= 0, got " +
                         python::float_repr(threshold_));
    }
}

EarlyStoppingCallback EarlyStoppingCallback::with_generated_state_key(int early_stopping_patience,
                                                                      double early_stopping_threshold) {
    return EarlyStoppingCallback(early_stopping_patience, early_stopping_threshold,
                                 generated_state_key(early_stopping_patience, early_stopping_threshold));
}

std::string EarlyStoppingCallback::generated_state_key(int early_stopping_patience,
                                                       double early_stopping_threshold) {
    return std::string(kClassName) + "{'" + kPatienceArg + "': " + std::to_string(early_stopping_patience) +
           ", '" + kThresholdArg + "': " + python::float_repr(early_stopping_threshold) + "}";
}

EarlyStoppingCallback EarlyStoppingCallback::from_state(const nlohmann::json& state) {
    if (!state.is_object()) {
        throw ValueError("EarlyStoppingCallback state must be a JSON object, got " + state.dump());
    }
    const nlohmann::json& args = section_of(state, "args");
    int patience = 1;
    double threshold = 0.0;
    if (const nlohmann::json* value = member(args, kPatienceArg)) {
        patience = integer_in(*value, where("args", kPatienceArg));
    }
    if (const nlohmann::json* value = member(args, kThresholdArg)) {
        threshold = number_in(*value, where("args", kThresholdArg));
    }
    std::optional<std::string> key;
    if (const nlohmann::json* value = member(state, "state_key")) {
        if (!value->is_string()) {
            throw ValueError("EarlyStoppingCallback state: state_key must be a string, got " + value->dump());
        }
        key = value->get<std::string>();
    }
    EarlyStoppingCallback callback(patience, threshold, std::move(key));
    callback.restore_attributes(section_of(state, "attributes"));
    return callback;
}

void EarlyStoppingCallback::restore_attributes(const nlohmann::json& attributes) {
    // Validate everything before assigning anything, so a bad payload leaves no half-restore.
    int counter = patience_counter_;
    std::optional<double> best = best_metric_;
    if (const nlohmann::json* value = member(attributes, kCounterAttribute)) {
        counter = integer_in(*value, where("attributes", kCounterAttribute));
        if (counter < 0) {
            throw ValueError(where("attributes", kCounterAttribute) + " must be >= 0, got " + value->dump());
        }
    }
    if (const nlohmann::json* value = member(attributes, kBestMetricAttribute)) {
        best = number_in(*value, where("attributes", kBestMetricAttribute));
    } else if (attributes.contains(kBestMetricAttribute)) {
        best.reset();  // an explicit null: no evaluation had produced a best yet
    }
    patience_counter_ = counter;
    best_metric_ = best;
    // Transformers' own layout: the counter was counted against TrainerState.best_metric.
    best_unknown_ =
        member(attributes, kCounterAttribute) != nullptr && !attributes.contains(kBestMetricAttribute);
}

void EarlyStoppingCallback::adopt_trainer_best_metric(std::optional<double> trainer_best_metric) {
    if (!best_unknown_ || mutants::is_active(mutants::Mutant::trainer_best_not_adopted)) {
        return;
    }
    best_unknown_ = false;
    if (trainer_best_metric && std::isfinite(*trainer_best_metric)) {
        best_metric_ = trainer_best_metric;
    }
}

nlohmann::json EarlyStoppingCallback::state() const {
    auto args = JsonObject().add(kPatienceArg, patience_).add(kThresholdArg, threshold_).build();
    auto attributes =
        JsonObject()
            .add(kCounterAttribute, mutants::is_active(mutants::Mutant::early_stopping_counter_not_saved)
                                        ? 0
                                        : patience_counter_)
            .add(kBestMetricAttribute, best_metric_ ? nlohmann::json(*best_metric_) : nlohmann::json())
            .build();
    return JsonObject().add("args", std::move(args)).add("attributes", std::move(attributes)).build();
}

void EarlyStoppingCallback::count_against_patience() noexcept {
    // A restored counter can be anything a file held; saturating keeps a long run past the stop
    // from overflowing it.
    if (patience_counter_ < std::numeric_limits<int>::max()) {
        ++patience_counter_;
    }
}

bool EarlyStoppingCallback::on_evaluate(double metric, bool greater_is_better, TrainerControl& control) {
    if (std::isfinite(metric)) {
        const bool strictly_better =
            !best_metric_ || (greater_is_better ? metric > *best_metric_ : metric < *best_metric_);
        // The first finite metric always counts as an improvement: there is nothing to beat.
        const bool improved =
            !best_metric_ || (strictly_better && std::fabs(metric - *best_metric_) > threshold_);
        if (improved) {
            patience_counter_ = 0;
        } else {
            count_against_patience();
        }
        if (strictly_better) {
            best_metric_ = metric;
        }
    } else {
        count_against_patience();
    }
    if (patience_counter_ >= patience_) {
        control.should_training_stop = true;
        return true;
    }
    return false;
}

}  // namespace ckpt
