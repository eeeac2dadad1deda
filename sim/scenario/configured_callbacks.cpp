// The callbacks one incarnation configures: the scenario's, or its resume change's for a job
// resumed from a checkpoint (the user edited the configuration before resuming), which of them
// carry a state key, and which sidecar version the incarnation's release writes.
#include <numeric>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

ConfiguredCallbacks configured_callbacks(const CallbackOptions& callbacks, bool resumed_from_checkpoint) {
    ConfiguredCallbacks out;
    out.policy = callbacks.policy;
    out.early_stopping_callback = callbacks.early_stopping_callback;
    out.early_stopping.resize(static_cast<std::size_t>(callbacks.early_stopping_callbacks));
    std::iota(out.early_stopping.begin(), out.early_stopping.end(), 0);
    if (!resumed_from_checkpoint) {
        return out;
    }
    if (callbacks.resume_change.policy) {
        out.policy = *callbacks.resume_change.policy;
    }
    if (callbacks.resume_change.early_stopping) {
        out.early_stopping = *callbacks.resume_change.early_stopping;
    }
    if (callbacks.resume_change.early_stopping_callback) {
        out.early_stopping_callback = *callbacks.resume_change.early_stopping_callback;
    }
    return out;
}

bool early_stopping_keyed(const CallbackOptions& callbacks, int id) noexcept {
    return callbacks.early_stopping_state_keys && !(callbacks.early_stopping_mixed_keys && id % 2 == 0);
}

int sidecar_version_written(const CallbackOptions& callbacks, int incarnation) noexcept {
    return callbacks.upgraded_across_resume && incarnation == 0 ? 1 : 2;
}

}  // namespace ckpt::sim
