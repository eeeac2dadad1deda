// The interface of a callback whose progress survives a resume (Transformers' ExportableState):
// its class name, optional state_key and {"args", "attributes"} state. What stateful_callbacks
// saves and restores; depends only on nlohmann/json.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ckpt {

// Transformers' ExportableState: a callback whose progress must survive a resume. state()
// returns {"args": {...constructor arguments...}, "attributes": {...progress...}}; a restored
// callback is rebuilt from the saved args (so they override the new configuration) and then
// given the saved attributes. "args" names every constructor parameter, null ones too, in every
// configuration: a restore refuses a saved argument it does not name, as Python's
// type(cb)(**args) raises TypeError for a keyword __init__ lacks.
class ExportableState {
  public:
    virtual ~ExportableState() = default;

    // The key under `stateful_callbacks` in trainer_state.json: Transformers uses the class name.
    virtual std::string class_name() const = 0;
    // A Lightning-style identity that tells apart several callbacks of one class. Without one,
    // duplicates are matched by position, as Transformers does.
    virtual std::optional<std::string> state_key() const { return std::nullopt; }
    virtual nlohmann::json state() const = 0;
    // Whether state()'s "args" are the user's configuration, which a resume must not silently
    // replace with the saved one (TrainerControl's args are its progress instead).
    virtual bool args_are_configuration() const { return true; }
};

}  // namespace ckpt
