// P10 against the callback states the ledger recorded when the checkpoint was written, and the
// early-stopping counters against the checker's own replay of the scores. Skips checkpoints the
// ledger no longer holds intact.
#include "sim/checks/callbacks_checker.hpp"

#include <cmath>
#include <string>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

using nlohmann::json;

std::vector<CallbacksChecker::EarlyStoppingModel> CallbacksChecker::fresh_models() const {
    return std::vector<EarlyStoppingModel>(
        static_cast<std::size_t>(context_.scenario.callbacks.early_stopping_callbacks));
}

void CallbacksChecker::on(const IncarnationBegan& e) {
    // A resume continues the branch of its checkpoint (set when the callbacks are restored); a
    // fresh start begins a new one.
    models_ = fresh_models();
    if (e.resume_step) {
        const auto saved = saved_.find(*e.resume_step);
        if (saved != saved_.end()) {
            models_ = saved->second;
        }
    }
}

// The rule, greater is better: a finite score strictly above the best by more than the threshold
// resets the counter, anything else adds one; any strictly better finite score becomes the best.
// The simulated trainer configures callback i with threshold 0.001 * i.
void CallbacksChecker::on(const DecisionMade& e) {
    for (std::size_t i = 0; i < models_.size(); ++i) {
        auto& model = models_[i];
        const double threshold = 0.001 * static_cast<double>(i);
        const bool finite = std::isfinite(e.score);
        const bool strictly_better = finite && (!model.best || e.score > *model.best);
        const bool improved =
            finite && (!model.best || (strictly_better && e.score - *model.best > threshold));
        model.counter = improved ? 0 : model.counter + 1;
        if (strictly_better) {
            model.best = e.score;
        }
    }
}

void CallbacksChecker::on(const TrainerStateWritten& e) {
    saved_[e.step] = models_;
}

void CallbacksChecker::on(const CallbacksRestored& e) {
    const auto record = context_.ledger.checkpoints.find(e.step);
    if (record == context_.ledger.checkpoints.end() ||
        !record_intact(context_.fs, context_.ledger, record->second)) {
        return;
    }
    if (e.restored_states != record->second.callback_states) {
        context_.violate(Property::P10, "callbacks restored from checkpoint-" + std::to_string(e.step) +
                                            " as " + e.restored_states.dump() + " but held " +
                                            record->second.callback_states.dump() + " when it was written");
    }
    if (!e.warnings.empty()) {
        context_.violate(Property::P10, "restoring an unchanged configuration warned: " + e.warnings.front());
    }
    check_early_stopping(e.step, e.restored_states);
}

void CallbacksChecker::check_early_stopping(std::int64_t step, const json& restored) {
    const auto saved = saved_.find(step);
    if (saved == saved_.end() || saved->second.empty()) {
        return;
    }
    const auto found = restored.find("EarlyStoppingCallback");
    if (found == restored.end()) {
        context_.violate(Property::P10,
                         "no EarlyStoppingCallback restored from checkpoint-" + std::to_string(step));
        return;
    }
    // One callback of a class is stored bare, several as a list in configuration order.
    const json states = found->is_array() ? *found : json::array({*found});
    for (std::size_t i = 0; i < saved->second.size(); ++i) {
        const auto expected = saved->second[i].counter;
        const json* counter = nullptr;
        if (i < states.size() && states[i].is_object()) {
            const auto attributes = states[i].find("attributes");
            if (attributes != states[i].end() && attributes->is_object() &&
                attributes->contains("early_stopping_patience_counter")) {
                counter = &(*attributes)["early_stopping_patience_counter"];
            }
        }
        if (counter == nullptr || !counter->is_number_integer() || counter->get<std::int64_t>() != expected) {
            context_.violate(Property::P10,
                             "EarlyStoppingCallback #" + std::to_string(i) + " restored from checkpoint-" +
                                 std::to_string(step) + " with patience counter " +
                                 (counter ? counter->dump() : std::string("none")) + ", but its " +
                                 "scores on this branch give " + std::to_string(expected));
            return;
        }
    }
}

}  // namespace ckpt::sim
