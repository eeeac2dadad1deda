// The replay rule of TriggerCallback (trigger_callback.hpp): after a resume from an older
// checkpoint, which save events are replays of ones the restored history already counted, so that a
// lower score counts toward patience once. The horizon is the last step that history evaluated.
#include <cmath>

#include "policy/base/mutants.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

using mutants::Mutant;

bool TriggerCallback::replays_counted_step(std::int64_t step) const noexcept {
    return replay_horizon_ && step <= *replay_horizon_ &&
           !mutants::is_active(Mutant::double_count_replayed_step);
}

bool TriggerCallback::replays_counted_epoch_end(const TrainerStateView& state) const noexcept {
    if (!replays_counted_step(state.global_step)) {
        return false;
    }
    const bool brought_forward = state.epoch != std::floor(state.epoch);
    return !brought_forward || state.global_step == *replay_horizon_ ||
           mutants::is_active(Mutant::stop_epoch_end_taken_for_replay);
}

}  // namespace ckpt
