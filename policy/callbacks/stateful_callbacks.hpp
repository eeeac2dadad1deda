// Saving and restoring TrainerState.stateful_callbacks in Transformers' shape, with state_key
// identity for duplicates. Export always rebuilds from live callbacks; a restore rebuilds every
// callback before replacing any, so a failure leaves no half-restore. Errors are ValueErrors, and
// TypeErrors where Python's call of a constructor would raise one.
// Used by the simulated trainer and the migration tests; depends on callbacks/ and base/.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"

namespace ckpt {

// Saving and restoring TrainerState.stateful_callbacks, the part of trainer_state.json that
// carries ExportableState callbacks across a resume.
//
// Shape (Transformers'): {"<class name>": state} for a class with one callback, and
// {"<class name>": [state, state, ...]} in configuration order when several share a class.
// When a callback declares a state_key we also store it inside its state, as
// {"args": ..., "attributes": ..., "state_key": "..."}: Transformers reads only args and
// attributes, so the file stays loadable by a real Trainer, while our restore can match
// duplicates by identity instead of by position.

// Builds stateful_callbacks afresh from every callback, in order. Never starts from a
// previous save: Transformers' refresh that reuses the stored dict appended to duplicate lists
// at every save (PR #33875), and its first version refreshed only TrainerControl (PR #32115).
// Throws ValueError for a null callback, a state() that is not a JSON object, or two callbacks
// of one class sharing a state_key.
nlohmann::json export_stateful_callbacks(const std::vector<const ExportableState*>& callbacks);

// What a checkpoint writer calls before writing trainer_state.json. `stored` is the
// stateful_callbacks carried since training began or resumed; the correct refresh ignores it
// and returns export_stateful_callbacks(callbacks). It is a parameter because the mutation
// catalogue's stale_callback_state and duplicate_list_grows bugs are refreshes that read it.
// A writer that has just exported the same callbacks passes that export as `exported`, and the
// correct refresh returns a copy of it instead of asking every callback for its state again.
nlohmann::json refresh_stateful_callbacks(const nlohmann::json& stored,
                                          const std::vector<const ExportableState*>& callbacks,
                                          const nlohmann::json* exported = nullptr);

// A callback in the current configuration, as the restore planner sees it.
struct ConfiguredCallback {
    std::string class_name;
    std::optional<std::string> state_key;
};

std::vector<ConfiguredCallback> describe_callbacks(const std::vector<const ExportableState*>& callbacks);

// Saved states live under their class name, so a state_key only has to be unique within its
// class. Two callbacks of one class with one key would silently share (and overwrite) a saved
// state, so they are refused with a ValueError that says how to tell them apart, as Lightning
// refuses duplicate state keys at Trainer init.
void check_unique_state_keys(const std::vector<ConfiguredCallback>& configured);

// Transformers' warning for saved states whose class has no callback in the configuration.
// `class_names` in the order they appear in stateful_callbacks.
std::string callbacks_not_configured_warning(const std::vector<std::string>& class_names);

struct CallbackRestorePlan {
    // One entry per configured callback, in the same order: the saved state to rebuild it from,
    // or nullopt to keep it as configured. A restored state carries the configured
    // callback's state_key, even when matched by position to a state saved without one.
    std::vector<std::optional<nlohmann::json>> states;
    // Human-readable, in a deterministic order; empty when every state found its callback.
    std::vector<std::string> warnings;
};

// Matches saved stateful_callbacks (null or missing means none) to the configured callbacks.
// Within a class: a callback with a state_key first takes the saved state with the same key;
// then the remaining callbacks take, in order, the saved states that carry no state_key
// (Transformers' matching by position, and the path for files Transformers wrote). A saved
// state with another key is never handed to a different callback: its arguments, and so its
// identity, differ. Unlike Transformers, which is silent there, this warns when a configured
// callback gets no state, when the counts differ, and for every saved state left unused.
// Throws ValueError for a malformed stateful_callbacks or duplicate configured state keys.
CallbackRestorePlan plan_callback_restore(const nlohmann::json& saved,
                                          const std::vector<ConfiguredCallback>& configured);

// Rebuilds callbacks from saved states by class name. A factory receives the whole saved state
// and must construct from its args and then apply its attributes, as Transformers does with
// type(callback)(**args) followed by setattr.
class CallbackFactoryRegistry {
  public:
    using Factory = std::function<std::unique_ptr<ExportableState>(const nlohmann::json& state)>;

    // Knows TrainerControl and EarlyStoppingCallback.
    static CallbackFactoryRegistry with_builtin_callbacks();

    // Throws ValueError for an empty factory or a class that already has one.
    void add(std::string class_name, Factory factory);
    bool contains(std::string_view class_name) const;
    // Throws ValueError for an unknown class, or a factory that returns null or another class.
    std::unique_ptr<ExportableState> create(const std::string& class_name, const nlohmann::json& state) const;

  private:
    std::map<std::string, Factory, std::less<>> factories_;
};

struct RestoredCallbacks {
    std::vector<std::unique_ptr<ExportableState>> callbacks;
    std::vector<std::string> warnings;
};

// Transformers' _load_callback_state: every configured callback that has a saved state is
// replaced by one rebuilt from it; the others are kept as configured. Order is preserved.
// Unlike Transformers, which silently rebuilds from the saved args (so an argument changed before
// the resume is ignored), a configured argument that differs from its saved value is a ValueError
// naming it, both values and the fix; TrainerControl, whose args are its flags, is exempt. As in
// Transformers, a saved argument the class does not take (one its state() does not export) is a
// TypeError naming it: a state another class saved, or text a fault garbled (finding 26).
// All rebuilding happens before anything is replaced, so a failure leaves no half-restore.
RestoredCallbacks restore_stateful_callbacks(const nlohmann::json& saved,
                                             std::vector<std::unique_ptr<ExportableState>> configured,
                                             const CallbackFactoryRegistry& registry);

}  // namespace ckpt
