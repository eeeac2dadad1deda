// The rare paths: moments a run can reach that the plain swarm almost never reaches, each
// counted once per scenario from what the events report (rare_path_tracker.hpp), never from a
// buggify switch being on. explore's summary prints the share of scenarios reaching each one.
// Depends on sim/base only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/base/enum_names.hpp"

namespace ckpt::sim {

enum class RarePath : std::uint8_t {
    crash_after_stop_decision,   // a job crash before the stop decision's next crash point passed
    crash_after_stop_persisted,  // a job crash right after a stop reached the sidecar
    durable_stop_restored,       // a resumed job started with a stop restored
    warmup_boundary_evaluation,  // a decision at exactly patience_start_step (> 0)
    tie_with_streak_reset,       // a tie meeting a non-zero streak, per tie policy
    tie_with_streak_ignore,
    tie_with_streak_stop,
    tie_with_streak_count,
    same_step_evaluated_twice,        // two decisions at one step in one incarnation
    early_stopping_acted,             // an EarlyStoppingCallback asked the trainer to stop
    sidecar_lower_then_older_resume,  // a resume from a checkpoint older than a sidecar-only lower score
    rank_killed_in_collective,        // a rank killed by another while blocked in a collective
    rank_killed_mid_broadcast,        // ... released by a broadcast others had left, not yet returned
    config_changed_on_resume,         // a job resumed from a checkpoint under an edited configuration
    seed_sidecar_adopted,  // a resume after an upgrade restored a version 1 sidecar, and trained on
    keyed_beside_positional_resumed,  // a resume restored keyed and positional callbacks of one class
};
inline constexpr auto kRarePathNames = make_enum_names<RarePath>({
    {RarePath::crash_after_stop_decision, "crash_after_stop_decision"},
    {RarePath::crash_after_stop_persisted, "crash_after_stop_persisted"},
    {RarePath::durable_stop_restored, "durable_stop_restored"},
    {RarePath::warmup_boundary_evaluation, "warmup_boundary_evaluation"},
    {RarePath::tie_with_streak_reset, "tie_with_streak:reset"},
    {RarePath::tie_with_streak_ignore, "tie_with_streak:ignore"},
    {RarePath::tie_with_streak_stop, "tie_with_streak:stop"},
    {RarePath::tie_with_streak_count, "tie_with_streak:count"},
    {RarePath::same_step_evaluated_twice, "same_step_evaluated_twice"},
    {RarePath::early_stopping_acted, "early_stopping_acted"},
    {RarePath::sidecar_lower_then_older_resume, "sidecar_lower_then_older_resume"},
    {RarePath::rank_killed_in_collective, "rank_killed_in_collective"},
    {RarePath::rank_killed_mid_broadcast, "rank_killed_mid_broadcast"},
    {RarePath::config_changed_on_resume, "config_changed_on_resume"},
    {RarePath::seed_sidecar_adopted, "seed_sidecar_adopted"},
    {RarePath::keyed_beside_positional_resumed, "keyed_beside_positional_resumed"},
});
static_assert(kRarePathNames.complete());
inline constexpr std::size_t kRarePathCount = kRarePathNames.size();

}  // namespace ckpt::sim
