// TrainerControl's state() and restore, in Transformers' shape (flags in "args"). A flag that is
// present but not a boolean is a ValueError; a missing one defaults to false.
#include "policy/callbacks/trainer_control.hpp"

#include <string>

#include "policy/base/errors.hpp"
#include "policy/base/json_object.hpp"

namespace ckpt {

namespace {

// Transformers restores a control with TrainerControl(**args), so the flags live in "args";
// "attributes" stays empty but present to keep the shape every ExportableState shares.
bool flag_from(const nlohmann::json& args, const char* name) {
    const auto found = args.find(name);
    if (found == args.end() || found->is_null()) {
        return false;
    }
    if (!found->is_boolean()) {
        throw ValueError(std::string("TrainerControl state: args.") + name + " must be a boolean, got " +
                         found->dump());
    }
    return found->get<bool>();
}

}  // namespace

nlohmann::json TrainerControl::state() const {
    auto args = JsonObject()
                    .add("should_training_stop", should_training_stop)
                    .add("should_epoch_stop", should_epoch_stop)
                    .add("should_save", should_save)
                    .add("should_evaluate", should_evaluate)
                    .add("should_log", should_log)
                    .build();
    return JsonObject().add("args", std::move(args)).add("attributes", nlohmann::json::object()).build();
}

TrainerControl TrainerControl::from_state(const nlohmann::json& state) {
    if (!state.is_object()) {
        throw ValueError("TrainerControl state must be a JSON object, got " + state.dump());
    }
    TrainerControl control;
    const auto args = state.find("args");
    if (args == state.end() || args->is_null()) {
        return control;
    }
    if (!args->is_object()) {
        throw ValueError("TrainerControl state: args must be a JSON object, got " + args->dump());
    }
    control.should_training_stop = flag_from(*args, "should_training_stop");
    control.should_epoch_stop = flag_from(*args, "should_epoch_stop");
    control.should_save = flag_from(*args, "should_save");
    control.should_evaluate = flag_from(*args, "should_evaluate");
    control.should_log = flag_from(*args, "should_log");
    return control;
}

}  // namespace ckpt
