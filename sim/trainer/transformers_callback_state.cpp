// The three pieces as Transformers writes them, over the trainer's callbacks; the saved states'
// shape is checked only as far as Transformers reads it (a state is an object whose "args" and
// "attributes", when present, are objects).
#include "sim/trainer/transformers_callback_state.hpp"

#include <map>
#include <stdexcept>

namespace ckpt::sim {

using nlohmann::json;

namespace {

void add_state(json& states, const std::string& class_name, json state) {
    auto& entry = states[class_name];
    if (entry.is_null()) {
        entry = std::move(state);
        return;
    }
    if (!entry.is_array()) {
        entry = json::array({std::move(entry)});
    }
    entry.push_back(std::move(state));
}

// {"args": {...}, "attributes": {...}} as Transformers reads it: .get("args", {}) and
// .get("attributes", {}).
json args_and_attributes(const json& data, const std::string& class_name) {
    if (!data.is_object()) {
        throw std::invalid_argument("stateful_callbacks." + class_name + ": a saved state must be an object");
    }
    json out = {{"args", data.value("args", json::object())},
                {"attributes", data.value("attributes", json::object())}};
    if (!out["args"].is_object() || !out["attributes"].is_object()) {
        throw std::invalid_argument("stateful_callbacks." + class_name +
                                    ": args and attributes must be objects");
    }
    return out;
}

}  // namespace

json TransformersCallbackState::export_states(const std::vector<const ExportableState*>& callbacks) const {
    json states = json::object();
    for (const auto* callback : callbacks) {
        add_state(states, callback->class_name(), callback->state());
    }
    return states;
}

json transformers_refresh(json stored, const json& live) {
    if (!stored.is_object()) {
        stored = json::object();
    }
    // self.state.stateful_callbacks[cb_name]: indexed before anything is written.
    for (const auto& [class_name, state] : live.items()) {
        if (!stored.contains(class_name)) {
            throw RefreshKeyError("KeyError: '" + class_name +
                                  "' (Transformers' _save_checkpoint refreshes a stateful callback the "
                                  "resumed trainer_state.json does not store)");
        }
    }
    for (const auto& [class_name, state] : live.items()) {
        json& entry = stored[class_name];
        if (!entry.is_array()) {
            entry = state;
        } else if (state.is_array()) {
            entry.insert(entry.end(), state.begin(), state.end());
        } else {
            entry.push_back(state);
        }
    }
    return stored;
}

json TransformersCallbackState::refresh_states(const json& stored,
                                               const std::vector<const ExportableState*>& /*callbacks*/,
                                               const json& exported) const {
    return transformers_refresh(stored, exported);
}

RestoredCallbackList TransformersCallbackState::restore(
    const json& saved, std::vector<std::unique_ptr<ExportableState>> configured,
    const Rebuild& rebuild) const {
    RestoredCallbackList out;
    std::vector<std::unique_ptr<ExportableState>> rebuilt(configured.size());
    std::vector<std::string> not_found;
    if (saved.is_object()) {
        for (const auto& [class_name, data] : saved.items()) {  // a JSON object's keys, sorted
            const json stored = data.is_array() ? data : json::array({data});
            std::size_t next = 0;
            bool configured_here = false;
            for (std::size_t i = 0; i < configured.size(); ++i) {
                if (configured[i]->class_name() != class_name) {
                    continue;
                }
                configured_here = true;
                if (next < stored.size()) {
                    rebuilt[i] = rebuild(class_name, args_and_attributes(stored[next++], class_name));
                }
            }
            if (!configured_here) {
                not_found.push_back(class_name);
            }
        }
    }
    for (std::size_t i = 0; i < configured.size(); ++i) {
        out.callbacks.push_back(rebuilt[i] ? std::move(rebuilt[i]) : std::move(configured[i]));
    }
    if (!not_found.empty()) {
        std::string names;
        for (const auto& name : not_found) {
            names += (names.empty() ? "" : ", ") + name;
        }
        out.warnings.push_back(
            "Checkpoint included callbacks not included in current configuration. Ignoring. (" + names + ")");
    }
    return out;
}

}  // namespace ckpt::sim
