// Transformers' own stateful-callback machinery (v4.4x-v4.5x, REFERENCE.md), restated apart from
// the port: what a user's Python callback runs under in a stock Trainer.
// - Export (TrainerState built): each callback's state() under its class name, a list when
//   several share a class, in list order. No state_key: Transformers knows none.
// - Refresh (_save_checkpoint): every live state is written into the carried dict, appended to a
//   class stored as a list and replacing a class stored once (so one stored state and several
//   live callbacks keep only the last). It indexes the carried dict by class name, so a class
//   that dict lacks (a stateful callback added after a resume: the dict is the checkpoint's)
//   raises KeyError, and the save fails after the weights, before trainer_state.json.
// - Restore (_load_callback_state): for each stored class, the configured callbacks of that class
//   take the stored states by position (the list silently cut to the shorter); each is rebuilt
//   from the saved args and attributes, so an argument changed before the resume is silently
//   replaced by the saved one. Stored classes with no configured callback give Transformers'
//   warning; nothing is said for a configured callback left without a state.
#pragma once

#include <stdexcept>

#include "sim/scenario/scenario.hpp"
#include "sim/trainer/callback_state_machinery.hpp"

namespace ckpt::sim {

// Python's KeyError from the refresh: the class name quoted, as Python prints it.
class RefreshKeyError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// _save_checkpoint's refresh: `live` (an export of the live callbacks) written into `stored`,
// appended to a class stored as a list, replacing a class stored once. Throws RefreshKeyError
// for a class `stored` lacks, before changing anything.
nlohmann::json transformers_refresh(nlohmann::json stored, const nlohmann::json& live);

class TransformersCallbackState final : public CallbackStateMachinery {
  public:
    bool under_test() const noexcept override { return false; }
    bool refresh_appends_duplicates(const TrainerOptions& /*trainer*/) const override { return true; }
    nlohmann::json export_states(const std::vector<const ExportableState*>& callbacks) const override;
    nlohmann::json refresh_states(const nlohmann::json& stored,
                                  const std::vector<const ExportableState*>& callbacks,
                                  const nlohmann::json& exported) const override;
    RestoredCallbackList restore(const nlohmann::json& saved,
                                 std::vector<std::unique_ptr<ExportableState>> configured,
                                 const Rebuild& rebuild) const override;
};

}  // namespace ckpt::sim
