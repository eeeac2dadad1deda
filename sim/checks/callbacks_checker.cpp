// P10 against the callback states the ledger recorded when the checkpoint was written.
// Skips checkpoints the ledger no longer holds intact.
#include "sim/checks/callbacks_checker.hpp"

#include <string>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

void CallbacksChecker::on(const CallbacksRestored& e) {
    const auto record = context_.ledger.checkpoints.find(e.step);
    if (record == context_.ledger.checkpoints.end() ||
        !record_intact(context_.fs, context_.ledger, record->second)) {
        return;
    }
    if (e.restored_states != record->second.callback_states) {
        context_.violate(Property::P10, "callbacks restored from checkpoint-" + std::to_string(e.step) +
                                            " as " + e.restored_states.dump() + " but held " +
                                            record->second.callback_states.dump() + " when it was written");
    }
    if (!e.warnings.empty()) {
        context_.violate(Property::P10, "restoring an unchanged configuration warned: " + e.warnings.front());
    }
}

}  // namespace ckpt::sim
