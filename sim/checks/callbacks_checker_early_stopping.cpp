// P10's early-stopping half: the checker's replay of every EarlyStoppingCallback's counter from
// the scores the simulator fed each evaluation (the port's callback against its own best,
// Transformers' own against the checker's TrainerState.best_metric, the port's restored from
// Transformers' state against that best: finding 23), its stop judged both ways, and the counters a
// checkpoint holds compared with the replay. Never reads a callback's own report of itself.
#include <cmath>
#include <string>
#include <utility>

#include "sim/checks/callbacks_checker.hpp"

namespace ckpt::sim {

using nlohmann::json;

// A counter Transformers' own callback saved was counted against TrainerState.best_metric, which
// the resume loads from the same checkpoint: the port's callback, restored from it, goes on
// against that best (REFERENCE.md: the counter is neither reset nor counted twice by a resume).
// The port's callback counts the score, greater being better.
void CallbacksChecker::adopt_trainer_best(const std::vector<bool>& restored) {
    const auto& trainer = context_.scenario.trainer;
    const auto metric = trainer.tracked_metric();
    const bool greater = trainer.tracked_greater_is_better();
    std::optional<double> best;
    if (trainer_best_metric_ && metric == "score" && greater) {
        best = *trainer_best_metric_;
    } else if (trainer_best_metric_ && metric == "loss" && !greater) {
        best = -*trainer_best_metric_;
    }
    for (std::size_t j = 0; j < restored.size(); ++j) {
        if (restored[j]) {
            running_.models[j].best = best;
        }
    }
}

// The first rank to report an evaluation moves the models; rank 0's report judges its stop, which
// rank 0's own early-stopping callbacks requested (or not) just before it.
void CallbacksChecker::on(const MetricsEvaluated& e) {
    if (evaluations_.first(e.rank)) {
        if (stock_early_stopping()) {
            replay_transformers_rule(e.score);
        } else {
            replay_port_rule(e.score);
        }
    }
    if (e.rank == 0) {
        judge_early_stop(e.step);
    }
}

void CallbacksChecker::on(const EarlyStoppingRequested& e) noexcept {
    if (e.rank == 0) {
        early_stop_requested_ = true;
    }
}

// Both ways, from the replayed counters: a stop no counter's patience ran out for, and patience
// run out with no stop while nothing had stopped training before the evaluation began. The ledger
// says whether the trigger's decisions stopped it, never the callbacks.
void CallbacksChecker::judge_early_stop(std::int64_t step) {
    bool due = false;
    for (std::size_t j = 0; j < running_.models.size(); ++j) {
        due = due || running_.models[j].counter >=
                         context_.scenario.callbacks.early_stopping_patience + running_.ids[j];
    }
    const bool requested = std::exchange(early_stop_requested_, false);
    const bool in_force = stop_in_force_ || step >= context_.scenario.trainer.max_steps;
    if (requested && !due) {
        context_.violate(Property::P10, "an EarlyStoppingCallback stopped training at step " +
                                            std::to_string(step) +
                                            ", but no counter its scores give reached its patience");
    } else if (due && !requested && !in_force) {
        context_.violate(Property::P10, "an EarlyStoppingCallback's patience ran out at step " +
                                            std::to_string(step) + ", but it did not stop training");
    }
    stop_in_force_ = in_force || requested || due || context_.ledger.current_state.stop_requested;
}

// The rule, greater is better: a finite score strictly above the best by more than the threshold
// resets the counter, anything else adds one; any strictly better finite score becomes the best.
// Callback k's threshold is the scenario's early_stopping_threshold times k.
void CallbacksChecker::replay_port_rule(double score) {
    for (std::size_t j = 0; j < running_.models.size(); ++j) {
        auto& model = running_.models[j];
        const double threshold = context_.scenario.callbacks.early_stopping_threshold * running_.ids[j];
        const bool finite = std::isfinite(score);
        const bool strictly_better = finite && (!model.best || score > *model.best);
        const bool improved = finite && (!model.best || (strictly_better && score - *model.best > threshold));
        model.counter = improved ? 0 : model.counter + 1;
        if (strictly_better) {
            model.best = score;
        }
    }
}

bool CallbacksChecker::stock_early_stopping() const noexcept {
    return running_.kind == EarlyStoppingCallbackKind::transformers;
}

// Transformers' own rule (REFERENCE.md): the metric is eval_<metric_for_best_model> (the loss is
// the score's negation); no best yet, or better by greater_is_better and by more than the threshold
// in absolute value, resets the counter, anything else adds one. Then _determine_best_metric,
// which runs after every callback's on_evaluate: a strict improvement becomes the best.
void CallbacksChecker::replay_transformers_rule(double score) {
    const auto& trainer = context_.scenario.trainer;
    const auto metric = trainer.tracked_metric();
    if (metric.empty()) {
        return;  // its on_train_begin asserted: no evaluation runs
    }
    const double value = metric == "loss" ? -score : score;
    const bool greater = trainer.tracked_greater_is_better();
    const auto& best = trainer_best_metric_;
    const bool better = best && (greater ? value > *best : value < *best);
    for (std::size_t j = 0; j < running_.models.size(); ++j) {
        const double threshold = context_.scenario.callbacks.early_stopping_threshold * running_.ids[j];
        auto& model = running_.models[j];
        model.counter = !best || (better && std::fabs(value - *best) > threshold) ? 0 : model.counter + 1;
    }
    if (!best || better) {
        trainer_best_metric_ = value;
    }
}

std::optional<std::string> CallbacksChecker::counters_finding(const json& states,
                                                              const std::vector<EarlyStoppingModel>& expected,
                                                              const std::string& where) const {
    if (expected.empty()) {
        return std::nullopt;
    }
    const auto found = states.find("EarlyStoppingCallback");
    if (found == states.end()) {
        return "no EarlyStoppingCallback state " + where;
    }
    // One callback of a class is stored bare, several as a list in configuration order (read in
    // place: this runs at every checkpoint write).
    const auto entry = [&found](std::size_t j) -> const json* {
        if (found->is_array()) {
            return j < found->size() ? &(*found)[j] : nullptr;
        }
        return j == 0 ? &*found : nullptr;
    };
    for (std::size_t j = 0; j < expected.size(); ++j) {
        const json* counter = nullptr;
        if (const json* state = entry(j); state != nullptr && state->is_object()) {
            const auto attributes = state->find("attributes");
            if (attributes != state->end() && attributes->is_object() &&
                attributes->contains("early_stopping_patience_counter")) {
                counter = &(*attributes)["early_stopping_patience_counter"];
            }
        }
        if (counter == nullptr || !counter->is_number_integer() ||
            counter->get<std::int64_t>() != expected[j].counter) {
            return "EarlyStoppingCallback #" + std::to_string(j) + " " + where + " with patience counter " +
                   (counter ? counter->dump() : std::string("none")) +
                   ", but its scores on this branch give " + std::to_string(expected[j].counter);
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim
