// Export, restore planning and the factory registry. Three catalogue mutants are planted here:
// same_class_overwrite in export, stale_callback_state and duplicate_list_grows in the refresh.
#include "policy/callbacks/stateful_callbacks.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt {

namespace {

constexpr const char* kStateKeyField = "state_key";

std::string describe(const std::string& class_name, std::size_t ordinal,
                     const std::optional<std::string>& key) {
    if (key) {
        return class_name + " (state_key '" + *key + "')";
    }
    return class_name + " #" + std::to_string(ordinal + 1);
}

nlohmann::json exported_state(const ExportableState& callback) {
    nlohmann::json state = callback.state();
    if (!state.is_object()) {
        throw ValueError(callback.class_name() +
                         ".state() must return a JSON object with args and attributes, got " + state.dump());
    }
    if (const auto key = callback.state_key()) {
        state[kStateKeyField] = *key;
    }
    return state;
}

// Transformers' accumulation: a second callback of a class turns its entry into a list.
void add_state(nlohmann::json& callbacks, const std::string& class_name, nlohmann::json state) {
    const auto found = callbacks.find(class_name);
    if (found == callbacks.end()) {
        callbacks[class_name] = std::move(state);
    } else if (mutants::is_active(mutants::Mutant::same_class_overwrite)) {
        *found = std::move(state);
    } else if (found->is_array()) {
        found->push_back(std::move(state));
    } else {
        *found = nlohmann::json::array({std::move(*found), std::move(state)});
    }
}

std::optional<std::string> saved_key(const nlohmann::json& entry, const std::string& class_name) {
    const auto found = entry.find(kStateKeyField);
    if (found == entry.end() || found->is_null()) {
        return std::nullopt;
    }
    if (!found->is_string()) {
        throw ValueError("stateful_callbacks." + class_name + ": state_key must be a string, got " +
                         found->dump());
    }
    return found->get<std::string>();
}

struct SavedState {
    nlohmann::json state;
    std::optional<std::string> key;
    bool used = false;
};

// Saved states per class name, each class's list in saved order; std::map keeps the classes
// in the byte order Transformers' sort_keys=True wrote them in.
std::map<std::string, std::vector<SavedState>> saved_states(const nlohmann::json& saved) {
    std::map<std::string, std::vector<SavedState>> by_class;
    if (saved.is_null()) {
        return by_class;
    }
    if (!saved.is_object()) {
        throw ValueError("stateful_callbacks must be a JSON object, got " + saved.dump());
    }
    for (const auto& [class_name, value] : saved.get_ref<const nlohmann::json::object_t&>()) {
        std::vector<SavedState>& states = by_class[class_name];
        // A list is read in place and a single state as a list of one, neither copied first.
        const bool several = value.is_array();
        const std::size_t count = several ? value.size() : 1;
        for (std::size_t index = 0; index < count; ++index) {
            const nlohmann::json& entry = several ? value[index] : value;
            if (!entry.is_object()) {
                throw ValueError("stateful_callbacks." + class_name + " must hold JSON objects, got " +
                                 entry.dump());
            }
            states.push_back(SavedState{entry, saved_key(entry, class_name)});
        }
    }
    return by_class;
}

// Positions (into `configured`) of every callback of one class, classes in order of first use.
std::vector<std::pair<std::string, std::vector<std::size_t>>> group_by_class(
    const std::vector<ConfiguredCallback>& configured) {
    std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
    for (std::size_t index = 0; index < configured.size(); ++index) {
        auto group = groups.begin();
        while (group != groups.end() && group->first != configured[index].class_name) {
            ++group;
        }
        if (group == groups.end()) {
            groups.emplace_back(configured[index].class_name, std::vector<std::size_t>{});
            group = std::prev(groups.end());
        }
        group->second.push_back(index);
    }
    return groups;
}

void assign(CallbackRestorePlan& plan, std::size_t index, SavedState& saved,
            const std::optional<std::string>& configured_key) {
    saved.used = true;
    nlohmann::json state = std::move(saved.state);  // a used state is never read again: taken, not copied
    if (configured_key) {
        state[kStateKeyField] = *configured_key;
    }
    plan.states[index] = std::move(state);
}

void plan_class(const std::string& class_name, const std::vector<std::size_t>& members,
                const std::vector<ConfiguredCallback>& configured, std::vector<SavedState>& saved,
                CallbackRestorePlan& plan) {
    for (const std::size_t index : members) {
        const auto& key = configured[index].state_key;
        if (!key) {
            continue;
        }
        for (SavedState& candidate : saved) {
            if (!candidate.used && candidate.key == key) {
                assign(plan, index, candidate, key);
                break;
            }
        }
    }
    auto next = saved.begin();
    for (const std::size_t index : members) {
        if (plan.states[index]) {
            continue;
        }
        while (next != saved.end() && (next->used || next->key)) {
            ++next;
        }
        if (next == saved.end()) {
            break;
        }
        assign(plan, index, *next, configured[index].state_key);
    }

    if (!saved.empty() && saved.size() != members.size()) {
        plan.warnings.push_back("Checkpoint holds " + std::to_string(saved.size()) + " saved state(s) for " +
                                class_name + " but the current configuration has " +
                                std::to_string(members.size()) + " such callback(s).");
    }
    for (std::size_t ordinal = 0; ordinal < members.size(); ++ordinal) {
        const std::size_t index = members[ordinal];
        if (!plan.states[index]) {
            plan.warnings.push_back("No saved state for callback " +
                                    describe(class_name, ordinal, configured[index].state_key) +
                                    "; it keeps its configured state.");
        }
    }
    for (std::size_t ordinal = 0; ordinal < saved.size(); ++ordinal) {
        if (!saved[ordinal].used) {
            plan.warnings.push_back("Ignoring saved state " +
                                    describe(class_name, ordinal, saved[ordinal].key) +
                                    ": no configured callback matches it.");
        }
    }
}

}  // namespace

nlohmann::json export_stateful_callbacks(const std::vector<const ExportableState*>& callbacks) {
    check_unique_state_keys(describe_callbacks(callbacks));
    nlohmann::json exported = nlohmann::json::object();
    for (const ExportableState* callback : callbacks) {
        add_state(exported, callback->class_name(), exported_state(*callback));
    }
    return exported;
}

nlohmann::json refresh_stateful_callbacks(const nlohmann::json& stored,
                                          const std::vector<const ExportableState*>& callbacks,
                                          const nlohmann::json* exported) {
    check_unique_state_keys(describe_callbacks(callbacks));
    if (mutants::is_active(mutants::Mutant::stale_callback_state)) {
        // Seed 000: only the control was brought up to date before trainer_state.json.
        nlohmann::json refreshed = stored.is_object() ? stored : export_stateful_callbacks(callbacks);
        for (const ExportableState* callback : callbacks) {
            if (callback->class_name() == "TrainerControl") {
                refreshed["TrainerControl"] = exported_state(*callback);
            }
        }
        return refreshed;
    }
    if (mutants::is_active(mutants::Mutant::duplicate_list_grows)) {
        // PR #33875: TrainerState built the lists once at init, then every save appended to them.
        nlohmann::json refreshed =
            stored.is_object() && !stored.empty() ? stored : export_stateful_callbacks(callbacks);
        for (const ExportableState* callback : callbacks) {
            nlohmann::json& entry = refreshed[callback->class_name()];
            if (entry.is_array()) {
                entry.push_back(exported_state(*callback));
            } else {
                entry = exported_state(*callback);
            }
        }
        return refreshed;
    }
    return exported != nullptr ? *exported : export_stateful_callbacks(callbacks);
}

std::vector<ConfiguredCallback> describe_callbacks(const std::vector<const ExportableState*>& callbacks) {
    std::vector<ConfiguredCallback> configured;
    configured.reserve(callbacks.size());
    for (std::size_t index = 0; index < callbacks.size(); ++index) {
        if (callbacks[index] == nullptr) {
            throw ValueError("stateful callback #" + std::to_string(index) + " is null");
        }
        configured.push_back(
            ConfiguredCallback{callbacks[index]->class_name(), callbacks[index]->state_key()});
    }
    return configured;
}

void check_unique_state_keys(const std::vector<ConfiguredCallback>& configured) {
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (const ConfiguredCallback& callback : configured) {
        if (callback.state_key && !seen.emplace(callback.class_name, *callback.state_key).second) {
            throw ValueError("Two " + callback.class_name + " callbacks have the same state_key '" +
                             *callback.state_key +
                             "', so their saved states could not be told apart; give each one a distinct "
                             "state_key.");
        }
    }
}

std::string callbacks_not_configured_warning(const std::vector<std::string>& class_names) {
    std::string joined;
    for (const std::string& name : class_names) {
        joined += (joined.empty() ? "" : ", ") + name;
    }
    return "Checkpoint included callbacks not included in current configuration. Ignoring. (" + joined + ")";
}

CallbackRestorePlan plan_callback_restore(const nlohmann::json& saved,
                                          const std::vector<ConfiguredCallback>& configured) {
    check_unique_state_keys(configured);
    auto by_class = saved_states(saved);
    CallbackRestorePlan plan;
    plan.states.resize(configured.size());
    for (const auto& [class_name, members] : group_by_class(configured)) {
        plan_class(class_name, members, configured, by_class[class_name], plan);
    }
    std::vector<std::string> not_configured;
    for (const auto& [class_name, states] : by_class) {
        const bool configured_class =
            std::any_of(configured.begin(), configured.end(),
                        [&name = class_name](const auto& callback) { return callback.class_name == name; });
        if (!configured_class && !states.empty()) {
            not_configured.push_back(class_name);
        }
    }
    if (!not_configured.empty()) {
        plan.warnings.push_back(callbacks_not_configured_warning(not_configured));
    }
    return plan;
}

CallbackFactoryRegistry CallbackFactoryRegistry::with_builtin_callbacks() {
    CallbackFactoryRegistry registry;
    registry.add("TrainerControl", [](const nlohmann::json& state) {
        return std::make_unique<TrainerControl>(TrainerControl::from_state(state));
    });
    registry.add(EarlyStoppingCallback::kClassName, [](const nlohmann::json& state) {
        return std::make_unique<EarlyStoppingCallback>(EarlyStoppingCallback::from_state(state));
    });
    return registry;
}

void CallbackFactoryRegistry::add(std::string class_name, Factory factory) {
    if (!factory) {
        throw ValueError("callback factory for " + class_name + " is empty");
    }
    if (factories_.contains(class_name)) {
        throw ValueError("a callback factory for " + class_name + " is already registered");
    }
    factories_.emplace(std::move(class_name), std::move(factory));
}

bool CallbackFactoryRegistry::contains(std::string_view class_name) const {
    return factories_.find(class_name) != factories_.end();
}

std::unique_ptr<ExportableState> CallbackFactoryRegistry::create(const std::string& class_name,
                                                                 const nlohmann::json& state) const {
    const auto found = factories_.find(class_name);
    if (found == factories_.end()) {
        throw ValueError("no callback factory registered for " + class_name +
                         "; register one with CallbackFactoryRegistry::add to restore its saved state");
    }
    std::unique_ptr<ExportableState> callback = found->second(state);
    if (!callback || callback->class_name() != class_name) {
        throw ValueError("the callback factory for " + class_name + " did not build a " + class_name);
    }
    return callback;
}

namespace {

// type(callback)(**args): Python raises TypeError for a saved argument that is not one of the
// constructor's parameters, which are exactly the args the live callback's state() exports.
void refuse_unexpected_arguments(const std::string& class_name, const nlohmann::json& parameters,
                                 const nlohmann::json& saved_state) {
    const auto saved_args = saved_state.find("args");
    if (!parameters.is_object() || saved_args == saved_state.end() || !saved_args->is_object()) {
        return;
    }
    for (const auto& [name, value] : saved_args->items()) {  // Python names the first one in the dict
        if (!parameters.contains(name)) {
            throw TypeError(class_name + ".__init__() got an unexpected keyword argument '" + name + "'");
        }
    }
}

// Transformers rebuilds a restored callback from its saved args, so an argument the user changed
// before resuming would be silently dropped. A configured argument left unset (null) inherits.
void refuse_changed_arguments(const std::string& class_name, const nlohmann::json& configured,
                              const nlohmann::json& saved_state) {
    const auto saved_args = saved_state.find("args");
    if (!configured.is_object() || saved_args == saved_state.end() || !saved_args->is_object()) {
        return;
    }
    std::string now;
    std::string before;
    for (const auto& [name, value] : configured.items()) {
        const auto saved_value = saved_args->find(name);
        if (value.is_null() || saved_value == saved_args->end() || saved_value->is_null() ||
            *saved_value == value) {
            continue;
        }
        now += (now.empty() ? "" : ", ") + name + "=" + value.dump();
        before += (before.empty() ? "" : ", ") + name + "=" + saved_value->dump();
    }
    if (!now.empty()) {
        throw ValueError(
            class_name + " is configured with " + now + " but the checkpoint saved it with " + before +
            ", and a restore rebuilds it from the saved arguments; resume with the saved "
            "arguments, or set restore_callback_states_from_checkpoint=False to start it afresh");
    }
}

}  // namespace

RestoredCallbacks restore_stateful_callbacks(const nlohmann::json& saved,
                                             std::vector<std::unique_ptr<ExportableState>> configured,
                                             const CallbackFactoryRegistry& registry) {
    std::vector<const ExportableState*> views;
    views.reserve(configured.size());
    for (const auto& callback : configured) {
        views.push_back(callback.get());
    }
    const std::vector<ConfiguredCallback> described = describe_callbacks(views);
    CallbackRestorePlan plan = plan_callback_restore(saved, described);

    std::vector<std::unique_ptr<ExportableState>> rebuilt(configured.size());
    for (std::size_t index = 0; index < configured.size(); ++index) {
        if (plan.states[index]) {
            const auto parameters = configured[index]->state().value("args", nlohmann::json());
            refuse_unexpected_arguments(described[index].class_name, parameters, *plan.states[index]);
            if (configured[index]->args_are_configuration() &&
                !mutants::is_active(mutants::Mutant::changed_args_silently_restored)) {
                refuse_changed_arguments(described[index].class_name, parameters, *plan.states[index]);
            }
            rebuilt[index] = registry.create(described[index].class_name, *plan.states[index]);
        }
    }
    RestoredCallbacks restored{std::move(configured), std::move(plan.warnings)};
    for (std::size_t index = 0; index < rebuilt.size(); ++index) {
        if (rebuilt[index]) {
            restored.callbacks[index] = std::move(rebuilt[index]);
        }
    }
    return restored;
}

}  // namespace ckpt
