// The one walk from a trainer_state.json document to the trigger callback's saved state.
// Lenient: any missing or mistyped step means "no state", never an exception.
#include "policy/formats/saved_trigger_callback.hpp"

namespace ckpt {

using nlohmann::json;

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
    if (!entry->is_array()) {
        return SavedTriggerCallback{*entry, 1};
    }
    // One callback of the class is the normal case; with several, the first one speaks.
    return SavedTriggerCallback{entry->empty() ? json() : entry->front(), entry->size()};
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
