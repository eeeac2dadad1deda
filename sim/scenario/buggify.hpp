// BUGGIFY (FoundationDB style): per-seed switches that aim the swarm at the rare paths. Each seed
// turns some switches on; each reshapes the drawn scenario so its moment is reached (a warm-up
// boundary on an evaluation step, scores that tie the best after a lower one), or plans a crash
// aimed at a moment (right after a stop). The names of the switches a seed turned on are logged
// in Scenario::buggify, so its first trace line says why it looks as it does. Not a mutant: the
// code under test is unchanged. Depends on the scenario and sim/base's Rng.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/base/enum_names.hpp"
#include "sim/base/rng.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

enum class BuggifySwitch : std::uint8_t {
    crash_after_stop_decision,   // a crash at the first crash point after a stop decision
    crash_after_stop_persisted,  // a crash at the first crash point after a stop reached the sidecar
    crash_after_sidecar_lower,   // a crash right after a lower score went to the sidecar only
    warmup_on_evaluation,        // patience_start_step drawn among the schedule's evaluation steps
    repeat_best_score,           // scripted scores: the best again after each lower score
    evaluation_on_epoch_end,     // save_strategy epoch with every epoch end on a regular step
    early_stopping_acts,         // EarlyStoppingCallback patience small enough to stop the run
    kill_blocked_rank,           // rank 0 kills another rank while it waits in a collective
    kill_mid_broadcast,          // a rank dies part-way through a broadcast: released, not returned
    config_change_on_resume,     // a resumed job runs an edited configuration (resume_change)
};
inline constexpr auto kBuggifySwitchNames = make_enum_names<BuggifySwitch>({
    {BuggifySwitch::crash_after_stop_decision, "crash_after_stop_decision"},
    {BuggifySwitch::crash_after_stop_persisted, "crash_after_stop_persisted"},
    {BuggifySwitch::crash_after_sidecar_lower, "crash_after_sidecar_lower"},
    {BuggifySwitch::warmup_on_evaluation, "warmup_on_evaluation"},
    {BuggifySwitch::repeat_best_score, "repeat_best_score"},
    {BuggifySwitch::evaluation_on_epoch_end, "evaluation_on_epoch_end"},
    {BuggifySwitch::early_stopping_acts, "early_stopping_acts"},
    {BuggifySwitch::kill_blocked_rank, "kill_blocked_rank"},
    {BuggifySwitch::kill_mid_broadcast, "kill_mid_broadcast"},
    {BuggifySwitch::config_change_on_resume, "config_change_on_resume"},
});
static_assert(kBuggifySwitchNames.complete());

// Draws this seed's switches from `rng` (a stream of its own) and applies those that are on to
// `s`, recording their names in s.buggify.
void buggify(Rng rng, Scenario& s);

}  // namespace ckpt::sim
