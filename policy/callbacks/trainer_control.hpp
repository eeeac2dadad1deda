// Transformers' TrainerControl flags, exportable so a resumed run sees the flags it saved. A
// plain value type; its state round-trips through from_state. Depends on exportable_state only.
#pragma once

#include <nlohmann/json.hpp>

#include "policy/callbacks/exportable_state.hpp"

namespace ckpt {

// Transformers' TrainerControl: the five flags callbacks use to steer the training loop. It is
// itself exportable, so a resumed run sees the flags it had when the checkpoint was written.
struct TrainerControl final : ExportableState {
    bool should_training_stop = false;
    bool should_epoch_stop = false;
    bool should_save = false;
    bool should_evaluate = false;
    bool should_log = false;

    std::string class_name() const override { return "TrainerControl"; }
    nlohmann::json state() const override;
    bool args_are_configuration() const override { return false; }  // its flags live in "args"
    // Rebuilds a control from state(); missing flags default to false, as Transformers does.
    static TrainerControl from_state(const nlohmann::json& state);
};

}  // namespace ckpt
