#pragma once

// Where trainer_state.json keeps the trigger callback's state: stateful_callbacks ->
// CheckpointEvaluationTriggerCallback (one state, or a list of them) -> attributes ->
// checkpoint_eval_state. Every reader of a checkpoint's callback state goes through here.
// Depends on nlohmann::json, the port's FileBytes and the formats' probe.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/ports/file_bytes.hpp"

namespace ckpt {

inline constexpr std::string_view kTriggerCallbackClass = "CheckpointEvaluationTriggerCallback";

struct SavedTriggerCallback {
    nlohmann::json state;    // the first saved state (null for an empty list): {"args", "attributes"}
    std::size_t copies = 1;  // how many states of the class the file holds
};

// The trigger callback's saved state in a trainer_state.json document; nothing when the
// document has no stateful_callbacks object or no entry for the class.
std::optional<SavedTriggerCallback> find_saved_trigger_callback(const nlohmann::json& trainer_state);
// The same from a trainer_state.json file as read: the whole file is validated
// (probe_trigger_callback_entry) and only the class's entry is parsed, so the answer is the parsed
// document's at the cost of that entry, whatever the length of the file's log_history.
std::optional<SavedTriggerCallback> find_saved_trigger_callback_in_file(const FileBytes& trainer_state_json);

// attributes.checkpoint_eval_state of a saved state (the policy's state_dict), or null.
nlohmann::json saved_policy_state(const nlohmann::json& saved_state);

}  // namespace ckpt
