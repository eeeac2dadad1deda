// P10 against the callback states the ledger recorded when the checkpoint was written, the
// early-stopping counters against the checker's own replay of the scores, and a resume under a
// changed configuration against the rule (reference_policy.hpp): refuse when the trigger's
// settings changed, or when Transformers' positional restore would rebuild an early-stopping
// callback from another one's arguments. Skips checkpoints the ledger no longer holds intact.
#include "sim/checks/callbacks_checker.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/reference_policy.hpp"

namespace ckpt::sim {

using nlohmann::json;

void CallbacksChecker::on(const IncarnationBegan& e) {
    // A resume continues the branch of its checkpoint; a fresh start begins a new one.
    const auto configured = configured_callbacks(context_.scenario.callbacks, e.resume_step.has_value());
    running_ = {configured.policy, configured.early_stopping,
                std::vector<EarlyStoppingModel>(configured.early_stopping.size())};
    configuration_unchanged_ = true;
    due_refusal_.clear();
    if (!e.resume_step) {
        return;
    }
    const auto saved = saved_.find(*e.resume_step);
    if (saved == saved_.end()) {
        return;
    }
    configuration_unchanged_ = saved->second.policy == running_.policy && saved->second.ids == running_.ids;
    due_refusal_ = due_refusal(saved->second, running_);
    if (context_.scenario.trainer.restore_callback_states_from_checkpoint) {
        running_.models = restored_models(saved->second, running_.ids);
    }
}

std::vector<std::string> CallbacksChecker::due_refusal(const Configuration& saved,
                                                       const Configuration& now) const {
    std::vector<std::string> names;
    for (const auto name : reference_changed_settings(saved.policy, now.policy)) {
        names.emplace_back(name);
    }
    // Without state keys a restore matches early-stopping callbacks by position, and one rebuilt
    // from another's saved arguments is a changed argument.
    const auto& options = context_.scenario;
    if (names.empty() && options.trainer.restore_callback_states_from_checkpoint &&
        !options.callbacks.early_stopping_state_keys) {
        const auto shared = std::min(saved.ids.size(), now.ids.size());
        for (std::size_t j = 0; j < shared; ++j) {
            if (saved.ids[j] != now.ids[j]) {
                names.emplace_back("early_stopping_patience");
                break;
            }
        }
    }
    return names;
}

std::vector<CallbacksChecker::EarlyStoppingModel> CallbacksChecker::restored_models(
    const Configuration& saved, const std::vector<int>& ids) const {
    std::vector<EarlyStoppingModel> models(ids.size());
    for (std::size_t j = 0; j < ids.size(); ++j) {
        // With state keys identity matches; without, position (which due_refusal holds to
        // identity). A callback that has no saved state starts fresh.
        const auto found = std::find(saved.ids.begin(), saved.ids.end(), ids[j]);
        if (found != saved.ids.end()) {
            models[j] = saved.models[static_cast<std::size_t>(found - saved.ids.begin())];
        }
    }
    return models;
}

// The rule, greater is better: a finite score strictly above the best by more than the threshold
// resets the counter, anything else adds one; any strictly better finite score becomes the best.
// Callback k's threshold is the scenario's early_stopping_threshold times k.
void CallbacksChecker::on(const DecisionMade& e) {
    for (std::size_t j = 0; j < running_.models.size(); ++j) {
        auto& model = running_.models[j];
        const double threshold = context_.scenario.callbacks.early_stopping_threshold * running_.ids[j];
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
    saved_[e.step] = running_;
    check_counters(e.callback_states, running_.models, "written into checkpoint-" + std::to_string(e.step));
}

void CallbacksChecker::on(const CallbacksRestored& e) {
    const auto record = context_.ledger.checkpoints.find(e.step);
    if (record == context_.ledger.checkpoints.end() ||
        !record_intact(context_.fs, context_.ledger, record->second)) {
        return;
    }
    if (configuration_unchanged_) {
        if (e.restored_states != record->second.callback_states) {
            context_.violate(Property::P10, "callbacks restored from checkpoint-" + std::to_string(e.step) +
                                                " as " + e.restored_states.dump() + " but held " +
                                                record->second.callback_states.dump() +
                                                " when it was written");
        }
        if (!e.warnings.empty()) {
            context_.violate(Property::P10,
                             "restoring an unchanged configuration warned: " + e.warnings.front());
        }
    }
    check_counters(e.restored_states, running_.models, "restored from checkpoint-" + std::to_string(e.step));
}

void CallbacksChecker::on(const TrainBegan& e) {
    if (e.resumed && !due_refusal_.empty()) {
        context_.violate(Property::P10, "a resume with a changed " + due_refusal_.front() +
                                            " trained on instead of refusing (the saved counts were "
                                            "judged under the old configuration)");
    }
}

void CallbacksChecker::on(const ResumeRefused& e) {
    if (due_refusal_.empty()) {
        context_.violate(Property::P10, "a resume the configuration change allows was refused: " + e.error);
        return;
    }
    for (const auto& name : due_refusal_) {
        if (e.error.find(name) == std::string::npos) {
            context_.violate(Property::P10,
                             "a refused resume does not name the changed " + name + ": " + e.error);
            return;
        }
    }
}

void CallbacksChecker::check_counters(const json& states, const std::vector<EarlyStoppingModel>& expected,
                                      const std::string& where) {
    if (expected.empty()) {
        return;
    }
    const auto found = states.find("EarlyStoppingCallback");
    if (found == states.end()) {
        context_.violate(Property::P10, "no EarlyStoppingCallback state " + where);
        return;
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
            context_.violate(Property::P10, "EarlyStoppingCallback #" + std::to_string(j) + " " + where +
                                                " with patience counter " +
                                                (counter ? counter->dump() : std::string("none")) +
                                                ", but its scores on this branch give " +
                                                std::to_string(expected[j].counter));
            return;
        }
    }
}

}  // namespace ckpt::sim
