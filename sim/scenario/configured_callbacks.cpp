// The callbacks one incarnation configures: the scenario's, or its resume change's for a job
// resumed from a checkpoint (the user edited the configuration before resuming).
#include <numeric>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

ConfiguredCallbacks configured_callbacks(const CallbackOptions& callbacks, bool resumed_from_checkpoint) {
    ConfiguredCallbacks out;
    out.policy = callbacks.policy;
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
    return out;
}

}  // namespace ckpt::sim
