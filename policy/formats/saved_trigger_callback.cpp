// The one walk from a trainer_state.json document to the trigger callback's saved state.
// Lenient: any missing or mistyped step means "no state", never an exception.
#include "policy/formats/saved_trigger_callback.hpp"

#include <type_traits>

#include "policy/base/json_teardown.hpp"
#include "policy/base/plain_json.hpp"
#include "policy/formats/trainer_state_probe.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

// The walk from the class's entry on (one state, or a list of them), over a value to copy the
// state from (Json is const json) or to move it out of.
template <typename Json>
SavedTriggerCallback saved_state_in_entry(Json& entry) {
    using Taken = std::conditional_t<std::is_const_v<Json>, const json&, json&&>;
    if (!entry.is_array()) {
        return SavedTriggerCallback{static_cast<Taken>(entry), 1};
    }
    // One callback of the class is the normal case; with several, the first one speaks.
    const std::size_t copies = entry.size();
    return SavedTriggerCallback{entry.empty() ? json() : json(static_cast<Taken>(entry.front())), copies};
}

}  // namespace

std::optional<SavedTriggerCallback> find_saved_trigger_callback(const json& trainer_state) {
    if (!trainer_state.is_object()) {
        return std::nullopt;
    }
    const auto callbacks = trainer_state.find("stateful_callbacks");
    if (callbacks == trainer_state.end() || !callbacks->is_object()) {
        return std::nullopt;
    }
    const auto entry = callbacks->find(std::string(kTriggerCallbackClass));
    if (entry == callbacks->end()) {
        return std::nullopt;
    }
    return saved_state_in_entry(*entry);
}

std::optional<SavedTriggerCallback> find_saved_trigger_callback_in_file(const FileBytes& trainer_state_json) {
    const auto text = probe_trigger_callback_entry(trainer_state_json);
    if (!text) {
        return std::nullopt;  // not a valid document, or no entry for the class
    }
    auto entry = parse_json_or_discarded(*text);
    auto saved = saved_state_in_entry(entry);
    tear_down(entry);  // what is left of it, dropped bottom-up (json_teardown.hpp)
    return saved;
}

json saved_policy_state(const json& saved_state) {
    if (!saved_state.is_object()) {
        return json();
    }
    const auto attributes = saved_state.find("attributes");
    if (attributes == saved_state.end() || !attributes->is_object()) {
        return json();
    }
    return attributes->value("checkpoint_eval_state", json());
}

}  // namespace ckpt
