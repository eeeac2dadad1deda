// P10 against the callback states the ledger recorded when the checkpoint was written, the
// early-stopping counters against the checker's own replay of the scores, and a resume under a
// changed configuration against the rule (reference_policy.hpp): refuse when the trigger's
// settings changed, or when Transformers' positional restore would rebuild an early-stopping
// callback from another one's arguments. It models the callback list order and the states
// trainer_state.json holds. Skips checkpoints the ledger no longer holds intact.
#include "sim/checks/callbacks_checker.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/exportable_state_layout.hpp"
#include "sim/checks/reference_policy.hpp"
#include "sim/checks/top_level_fields.hpp"

namespace ckpt::sim {

using nlohmann::json;

void CallbacksChecker::on(const IncarnationBegan& e) {
    // A resume continues the branch of its checkpoint; a fresh start begins a new one, whose
    // TrainerState holds the states exported when the Trainer was built.
    const auto configured = configured_callbacks(context_.scenario.callbacks, e.resume_step.has_value());
    const auto count = configured.early_stopping.size();
    running_ = {configured.policy,
                configured.early_stopping,
                std::vector<EarlyStoppingModel>(count),
                {},
                configured.early_stopping_callback};
    running_.held = {running_.ids, running_.models, count >= 2};
    configuration_unchanged_ = true;
    layout_judged_write_.reset();
    evaluations_.reset();
    due_refusal_.clear();
    restore_leaves_unmatched_ = false;
    restore_findings_.clear();
    trainer_best_metric_.reset();
    if (!e.resume_step) {
        return;
    }
    // TrainerState.load_from_json: the resumed run's best_metric is what the file on disk says.
    if (const auto text =
            context_.fs.shared_content_in(FsView::visible, trainer_state_path(*e.resume_step))) {
        if (const auto fields = read_top_level_fields(*text, {"best_metric"})) {
            if (const auto found = fields->find("best_metric");
                found != fields->end() && found->second.is_number()) {
                trainer_best_metric_ = found->second.get<double>();
            }
        }
    }
    const auto saved = saved_.find(*e.resume_step);
    if (saved == saved_.end()) {
        return;
    }
    const HeldStates& held = saved->second.held;
    running_.held = held;  // a resume loads the checkpoint's stateful_callbacks as they are
    // Unchanged: the callbacks the checkpoint was written by, and no class's states kept beyond
    // them (the appending refresh keeps a removed class's, and a restore rightly warns of it).
    configuration_unchanged_ =
        saved->second.kind == running_.kind && saved->second.policy == running_.policy &&
        same_callbacks(saved->second.ids, running_.ids) && !(saved->second.ids.empty() && !held.ids.empty());
    due_refusal_ = due_refusal(saved->second, running_);
    if (context_.scenario.trainer.restore_callback_states_from_checkpoint) {
        std::vector<bool> restored;  // the callbacks the matching gave a held state
        running_.models = restored_models(held, running_.ids, restored);
        const auto matched = static_cast<std::size_t>(std::count(restored.begin(), restored.end(), true));
        restore_leaves_unmatched_ = matched < running_.ids.size() || matched < held.ids.size();
        if (saved->second.kind == EarlyStoppingCallbackKind::transformers &&
            running_.kind == EarlyStoppingCallbackKind::port) {
            adopt_trainer_best(restored);
        }
        if (context_.scenario.trainer.restored_callbacks_position == RestoredCallbacksPosition::end) {
            move_restored_to_end(restored);
        }
    }
}

// Whether the early-stopping callbacks are the ones a checkpoint was written by: the keyed ones
// by identity, in any order; the others by position among themselves.
bool CallbacksChecker::same_callbacks(const std::vector<int>& written, const std::vector<int>& ids) const {
    const auto split = [this](const std::vector<int>& all) {
        std::pair<std::vector<int>, std::vector<int>> keyed_and_positional;
        for (const int id : all) {
            (early_stopping_keyed(context_.scenario.callbacks, id) ? keyed_and_positional.first
                                                                   : keyed_and_positional.second)
                .push_back(id);
        }
        std::sort(keyed_and_positional.first.begin(), keyed_and_positional.first.end());
        return keyed_and_positional;
    };
    return split(written) == split(ids);
}

// The restore's matching, restated: a keyed callback takes the held state with its own key; then
// every callback still without one takes, in order, the next held state that carries no key.
// For each configured callback, the index of the held state it gets, if any.
std::vector<std::optional<std::size_t>> CallbacksChecker::restore_matches(const std::vector<int>& held,
                                                                          const std::vector<int>& ids) const {
    const auto& options = context_.scenario.callbacks;
    std::vector<std::optional<std::size_t>> matches(ids.size());
    std::vector<bool> used(held.size(), false);
    for (std::size_t j = 0; j < ids.size(); ++j) {
        if (!early_stopping_keyed(options, ids[j])) {
            continue;
        }
        for (std::size_t i = 0; i < held.size(); ++i) {
            if (!used[i] && held[i] == ids[j]) {
                used[i] = true;
                matches[j] = i;
                break;
            }
        }
    }
    std::size_t next = 0;
    for (std::size_t j = 0; j < ids.size(); ++j) {
        if (matches[j]) {
            continue;
        }
        while (next < held.size() && (used[next] || early_stopping_keyed(options, held[next]))) {
            ++next;
        }
        if (next < held.size()) {
            used[next] = true;
            matches[j] = next;
        }
    }
    return matches;
}

std::vector<std::string> CallbacksChecker::due_refusal(const Configuration& saved,
                                                       const Configuration& now) const {
    std::vector<std::string> names;
    for (const auto name : reference_changed_settings(saved.policy, now.policy)) {
        names.emplace_back(name);
    }
    // A callback matched by position to a held state without a key may get another one's saved
    // arguments: that is a changed argument.
    if (names.empty() && context_.scenario.trainer.restore_callback_states_from_checkpoint) {
        const auto matches = restore_matches(saved.held.ids, now.ids);
        for (std::size_t j = 0; j < matches.size(); ++j) {
            if (matches[j] && saved.held.ids[*matches[j]] != now.ids[j]) {
                names.emplace_back("early_stopping_patience");
                break;
            }
        }
    }
    return names;
}

std::vector<CallbacksChecker::EarlyStoppingModel> CallbacksChecker::restored_models(
    const HeldStates& held, const std::vector<int>& ids, std::vector<bool>& restored) const {
    std::vector<EarlyStoppingModel> models(ids.size());
    restored.assign(ids.size(), false);
    const auto matches = restore_matches(held.ids, ids);
    for (std::size_t j = 0; j < ids.size(); ++j) {
        // A callback that gets no held state starts fresh; one that gets another's is a refusal
        // (due_refusal).
        if (!matches[j]) {
            continue;
        }
        restored[j] = true;
        // The state it must get is its own at the checkpoint: the last one held for it (the
        // appending refresh keeps older ones in front, which Transformers' zip would restore).
        const auto last = std::find(held.ids.rbegin(), held.ids.rend(), ids[j]);
        if (last != held.ids.rend()) {
            models[j] = held.models[static_cast<std::size_t>(held.ids.rend() - last - 1)];
        }
    }
    return models;
}

// _load_callback_state removes each callback it restored and re-adds the rebuilt one at the end
// of the callback list: the ones it did not restore come first, in configuration order.
void CallbacksChecker::move_restored_to_end(const std::vector<bool>& restored) {
    std::vector<int> ids;
    std::vector<EarlyStoppingModel> models;
    for (const bool moved : {false, true}) {
        for (std::size_t j = 0; j < restored.size(); ++j) {
            if (restored[j] == moved) {
                ids.push_back(running_.ids[j]);
                models.push_back(running_.models[j]);
            }
        }
    }
    running_.ids = std::move(ids);
    running_.models = std::move(models);
}

// _save_checkpoint's refresh: a clean export, or (the appending refresh) a held list gets every
// live state appended, a held single state is replaced, and an unconfigured class's is kept.
CallbacksChecker::HeldStates CallbacksChecker::after_save() const {
    const HeldStates live{running_.ids, running_.models, running_.ids.size() >= 2};
    if (context_.scenario.trainer.stateful_callbacks_refresh != StatefulCallbacksRefresh::append ||
        (!running_.held.list && !live.ids.empty())) {
        return live;
    }
    HeldStates held = running_.held;
    held.ids.insert(held.ids.end(), live.ids.begin(), live.ids.end());
    held.models.insert(held.models.end(), live.models.begin(), live.models.end());
    return held;
}

void CallbacksChecker::on(const TrainerStateWritten& e) {
    running_.held = after_save();
    saved_[e.step] = running_;
    // saved_ is read only for the checkpoint a resume starts from, which a view shows then. The
    // ledger writer (which ran first) retires the record of a checkpoint no view can show again,
    // and a new write of it comes through here, so the configurations of retired checkpoints can
    // go: a long run keeps those of the checkpoints on disk, not one per save.
    if (retirements_seen_ != context_.ledger.retirements) {
        retirements_seen_ = context_.ledger.retirements;
        std::erase_if(saved_,
                      [&](const auto& entry) { return !context_.ledger.checkpoints.contains(entry.first); });
    }
    // The event carries the live export (the appending refresh's stale entries are not in it).
    const auto where = "written into checkpoint-" + std::to_string(e.step);
    if (auto finding = counters_finding(*e.callback_states, running_.models, where)) {
        context_.violate(Property::P10, *finding);
    } else if (layout_judged_write_ != std::make_pair(e.step, e.rank)) {
        // Once per write: the event comes again, with the same export, once the file is durable.
        layout_judged_write_ = std::make_pair(e.step, e.rank);
        if (auto layout = stateful_callbacks_finding(*e.callback_states, expected_export())) {
            context_.violate(Property::P10, "stateful_callbacks " + where + ": " + *layout);
        }
    }
}

// What the running incarnation's callbacks must export, from the scenario, the checker's models
// and the ledger's state (when it knows what the resume restored).
ExpectedStatefulCallbacks CallbacksChecker::expected_export() const {
    const auto& options = context_.scenario;
    ExpectedStatefulCallbacks expected{running_.policy,
                                       options.callbacks.gate_steps,
                                       options.callbacks.regular_steps,
                                       options.trainer.save_total_limit,
                                       std::nullopt,
                                       {}};
    if (!context_.ledger.prior_unknown) {
        expected.policy_state = context_.ledger.current_state;
    }
    for (std::size_t j = 0; j < running_.ids.size(); ++j) {
        const int id = running_.ids[j];
        expected.early_stopping.push_back(
            {options.callbacks.early_stopping_patience + id, options.callbacks.early_stopping_threshold * id,
             early_stopping_keyed(options.callbacks, id), running_.models[j].counter, running_.models[j].best,
             stock_early_stopping()});
    }
    return expected;
}

// With state keys a restore matches by identity, so the order of keyed early-stopping states
// carries nothing: compare the lists sorted by key. Without them the order is the identity.
bool CallbacksChecker::restored_as_held(const json& restored, const json& held) const {
    if (!context_.scenario.callbacks.early_stopping_state_keys) {
        return restored == held;
    }
    const auto by_key = [](json states) {
        const auto found = states.find("EarlyStoppingCallback");
        if (found != states.end() && found->is_array()) {
            // Stable: the states without a key keep their order, which is their identity.
            std::stable_sort(found->begin(), found->end(), [](const json& a, const json& b) {
                return a.value("state_key", std::string()) < b.value("state_key", std::string());
            });
        }
        return states;
    };
    return by_key(restored) == by_key(held);
}

// Judged when training goes on with what was restored: a resume refused at on_train_begin
// (a changed setting, or the appending refresh beside several callbacks of one class) never
// trains with it.
void CallbacksChecker::on(const CallbacksRestored& e) {
    restore_findings_.clear();
    const auto record = context_.ledger.checkpoints.find(e.step);
    if (record == context_.ledger.checkpoints.end() ||
        !record_intact(context_.fs, context_.ledger, record->second)) {
        return;
    }
    if (configuration_unchanged_) {
        if (!restored_as_held(e.restored_states, *record->second.callback_states)) {
            restore_findings_.push_back("callbacks restored from checkpoint-" + std::to_string(e.step) +
                                        " as " + e.restored_states.dump() + " but held " +
                                        record->second.callback_states->dump() + " when it was written");
        }
        if (!e.warnings.empty()) {
            restore_findings_.push_back("restoring an unchanged configuration warned: " + e.warnings.front());
        }
    } else if (e.by_the_port && restore_leaves_unmatched_ &&
               std::none_of(e.warnings.begin(), e.warnings.end(), [](const std::string& warning) {
                   return warning.find("EarlyStoppingCallback") != std::string::npos;
               })) {
        // A callback that keeps its configured state, or a saved state dropped, is the user's to
        // know: the port warns, naming the class.
        restore_findings_.push_back(
            "restoring from checkpoint-" + std::to_string(e.step) +
            " left an EarlyStoppingCallback state or callback unmatched and warned nothing of it");
    }
    if (auto finding = counters_finding(e.restored_states, running_.models,
                                        "restored from checkpoint-" + std::to_string(e.step))) {
        restore_findings_.push_back(std::move(*finding));
    }
}

void CallbacksChecker::on(const TrainBegan& e) {
    // CallbackHandler.on_train_begin clears the stop; the trigger sets it again when the state it
    // restored had stopped (the ledger's, or unknown to it).
    stop_in_force_ = context_.ledger.prior_unknown || context_.ledger.current_state.stop_requested;
    early_stop_requested_ = false;
    for (const auto& finding : restore_findings_) {
        context_.violate(Property::P10, finding);
    }
    restore_findings_.clear();
    if (e.resumed && !due_refusal_.empty()) {
        context_.violate(Property::P10, "a resume with a changed " + due_refusal_.front() +
                                            " trained on instead of refusing (the saved counts were "
                                            "judged under the old configuration)");
    }
}

namespace {

// The names a refusal lists between `opening` and the next `closing`, ", "-separated, each up to
// an '=' ("patience, tie_policy" or "early_stopping_patience=3, early_stopping_threshold=0.1");
// nothing when the message has no such clause.
std::optional<std::vector<std::string>> listed_names(std::string_view error, std::string_view opening,
                                                     std::string_view closing) {
    const auto start = error.find(opening);
    if (start == std::string_view::npos) {
        return std::nullopt;
    }
    const auto list_start = start + opening.size();
    const auto end = error.find(closing, list_start);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (auto rest = error.substr(list_start, end - list_start); !rest.empty();) {
        const auto comma = rest.find(", ");
        const auto item = rest.substr(0, comma);
        names.emplace_back(item.substr(0, item.find('=')));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
    return names;
}

}  // namespace

// Judged on the clause that lists what changed, in the messages whose form is known: they also
// spell out every setting's saved and configured value, so a name found anywhere in them would
// prove nothing.
void CallbacksChecker::on(const ResumeRefused& e) {
    if (due_refusal_.empty()) {
        context_.violate(Property::P10, "a resume the configuration change allows was refused: " + e.error);
        return;
    }
    // Three messages say what changed: the trigger's own refusal ("... with a changed A, B: it was
    // saved with ..."), and the stateful-callback restore's, for the trigger's class or an
    // early-stopping callback rebuilt from another's arguments ("<class> is configured with
    // name=value, ... but the checkpoint saved it with ..."). The trigger's settings must be
    // listed exactly; an early-stopping callback's list must hold its patience. The policy's own
    // load_state_dict, reached when nothing refused first, names one setting, which must be changed.
    const bool trigger_settings = due_refusal_.front() != "early_stopping_patience";
    auto due = due_refusal_;
    std::sort(due.begin(), due.end());
    auto listed = listed_names(e.error, "with a changed ", ": ");
    if (!listed) {
        listed = listed_names(e.error, " is configured with ", " but ");
    }
    bool names_due = false;
    if (listed) {
        std::sort(listed->begin(), listed->end());
        names_due = trigger_settings ? *listed == due
                                     : std::includes(listed->begin(), listed->end(), due.begin(), due.end());
    } else if ((listed = listed_names(e.error, "resumed checkpoint evaluation ",
                                      " does not match configuration"))) {
        names_due = listed->size() == 1 && std::binary_search(due.begin(), due.end(), listed->front());
    } else {
        // A message of another form (a user's own callback): each changed name must appear in it.
        for (const auto& name : due) {
            if (e.error.find(name) == std::string::npos) {
                context_.violate(Property::P10,
                                 "a refused resume does not name the changed " + name + ": " + e.error);
                return;
            }
        }
        return;
    }
    if (!names_due) {
        context_.violate(Property::P10, "a refused resume names the changed " +
                                            (listed->empty() ? std::string("nothing") : listed->front()) +
                                            (listed->size() > 1 ? ", ..." : "") + " instead of the changed " +
                                            due.front() + (due.size() > 1 ? ", ..." : "") + ": " + e.error);
    }
}

}  // namespace ckpt::sim
