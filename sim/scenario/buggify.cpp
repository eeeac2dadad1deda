// Each switch's effect on a drawn scenario. Switches are applied in enum order, and the schedule
// switches before the warm-up one, so the boundary is drawn on the schedule the run really has.
#include "sim/scenario/buggify.hpp"

#include <algorithm>
#include <vector>

#include "policy/core/tie_policy.hpp"
#include "sim/scenario/roll.hpp"
#include "sim/scenario/swarm_ranges.hpp"

namespace ckpt::sim {
namespace {

PlannedFault aimed_crash(Rng& rng, FaultAim aim) {
    PlannedFault fault;
    fault.action = FaultAction::crash;
    fault.aim = aim;
    fault.occurrence = 1;
    fault.kind = roll(rng, kSwarm.faults.process_kill) ? CrashKind::process_kill : CrashKind::power_loss;
    fault.power_loss = static_cast<PowerLossMode>(rng.below(kPowerLossModeNames.size()));
    return fault;
}

// Rank 0, running, kills another rank; that one is inside a collective (waiting, or released and
// not yet resumed), since a rank only yields there. From a step in the first half of the run, as
// the mid-broadcast death: a step the run never reaches (a policy stop comes first) kills nobody.
PlannedFault blocked_rank_death(Rng& rng, const Scenario& s) {
    PlannedFault fault;
    fault.action = FaultAction::rank_death;
    fault.aim = FaultAim::blocked_in_collective;
    fault.rank = rng.uniform(1, s.job.ranks - 1);
    fault.at_step = rng.uniform<std::int64_t>(1, std::max<std::int64_t>(1, s.trainer.max_steps / 2));
    return fault;
}

// Some rank dies part-way through a broadcast (FaultAim::mid_broadcast), from a step in the
// first half of the run so most runs still have collectives left.
PlannedFault mid_broadcast_death(Rng& rng, const Scenario& s) {
    PlannedFault fault;
    fault.action = FaultAction::rank_death;
    fault.aim = FaultAim::mid_broadcast;
    fault.at_step = rng.uniform<std::int64_t>(0, std::max<std::int64_t>(1, s.trainer.max_steps / 2));
    return fault;
}

// Every epoch end is a regular evaluation step too, so an epoch-end save event lands on a step the
// callback already evaluated.
void put_evaluation_on_epoch_end(Rng& rng, Scenario& s) {
    if (!s.callbacks.regular_steps) {
        s.callbacks.regular_steps = rng.uniform(kSwarm.regular_steps.lo, kSwarm.regular_steps.hi);
    }
    const auto& mix = kSwarm.buggify;
    s.trainer.save_strategy = SaveStrategy::epoch;
    s.trainer.steps_per_epoch = *s.callbacks.regular_steps *
                                rng.uniform(mix.epochs_per_regular_step.lo, mix.epochs_per_regular_step.hi);
}

// The steps that start an evaluation in the first half of the run: gate steps, regular steps and
// the save cadence (save_steps, or the epoch ends).
std::vector<std::int64_t> early_evaluation_steps(const Scenario& s) {
    const std::int64_t horizon = std::max<std::int64_t>(1, s.trainer.max_steps / 2);
    std::vector<std::int64_t> steps;
    for (const auto gate : s.callbacks.gate_steps) {
        if (gate <= horizon) {
            steps.push_back(gate);
        }
    }
    const auto add_multiples = [&](std::int64_t every) {
        for (std::int64_t step = every; step <= horizon; step += every) {
            steps.push_back(step);
        }
    };
    add_multiples(s.trainer.save_strategy == SaveStrategy::steps ? s.trainer.save_steps
                                                                 : s.trainer.steps_per_epoch);
    if (s.callbacks.regular_steps) {
        add_multiples(*s.callbacks.regular_steps);
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

void put_warmup_on_evaluation(Rng& rng, Scenario& s) {
    const auto steps = early_evaluation_steps(s);
    if (!steps.empty()) {
        s.callbacks.policy.patience_start_step = steps[rng.below(steps.size())];
    }
}

// best, then (lower, best) pairs: every tie follows a lower score, so it meets a non-zero streak
// once the warm-up is over. Scores stay on the swarm's grid.
void repeat_best_score(Rng& rng, ScoreModelConfig& score) {
    const int grid = kSwarm.score_grid;
    const int best = rng.uniform(grid / 2, grid - 2);
    const auto repeats =
        rng.uniform(kSwarm.buggify.tie_script_repeats.lo, kSwarm.buggify.tie_script_repeats.hi);
    score.kind = ScoreKind::scripted;
    score.script = {static_cast<double>(rng.uniform(0, best - 1)) / grid, static_cast<double>(best) / grid};
    for (int i = 0; i < repeats; ++i) {
        score.script.push_back(static_cast<double>(rng.uniform(0, best - 1)) / grid);
        score.script.push_back(static_cast<double>(best) / grid);
    }
}

// Two callbacks at least, so one has a threshold that makes its counter live in a checkpoint.
void make_early_stopping_act(Rng& rng, CallbackOptions& callbacks) {
    callbacks.early_stopping_callbacks = std::max(callbacks.early_stopping_callbacks, 2);
    const auto& range = kSwarm.buggify.early_stopping_patience;
    callbacks.early_stopping_patience = rng.uniform(range.lo, range.hi);
    callbacks.early_stopping_threshold = kSwarm.buggify.early_stopping_threshold;
}

// Another value of `value` in [lo, hi].
std::int64_t another_in(Rng& rng, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    return lo + (value - lo + rng.uniform<std::int64_t>(1, hi - lo)) % (hi - lo + 1);
}

// One edit a user makes before resuming: a trigger setting, or the early-stopping callbacks
// (one added, the last removed, or their order reversed).
void change_configuration_on_resume(Rng& rng, CallbackOptions& callbacks) {
    auto policy = callbacks.policy;
    std::vector<int> ids(static_cast<std::size_t>(callbacks.early_stopping_callbacks));
    for (std::size_t k = 0; k < ids.size(); ++k) {
        ids[k] = static_cast<int>(k);
    }
    switch (rng.below(6)) {
        case 0:
            policy.patience = another_in(rng, policy.patience, kSwarm.patience.lo, kSwarm.patience.hi);
            break;
        case 1:
            policy.tie_policy = static_cast<TiePolicy>(
                (static_cast<int>(policy.tie_policy) + rng.uniform(1, 3)) % enumerator_count<TiePolicy>());
            break;
        case 2:
            policy.patience_start_step =
                policy.patience_start_step == 0
                    ? rng.uniform(kSwarm.patience_start_step.lo, kSwarm.patience_start_step.hi)
                    : 0;
            break;
        case 3:
            if (ids.size() < 4) {
                ids.push_back(static_cast<int>(ids.size()));
            } else {
                ids.pop_back();
            }
            break;
        case 4:
            if (!ids.empty()) {
                ids.pop_back();
            } else {
                ids.push_back(0);
            }
            break;
        default:
            callbacks.early_stopping_callbacks = std::max(callbacks.early_stopping_callbacks, 2);
            ids.resize(static_cast<std::size_t>(callbacks.early_stopping_callbacks));
            for (std::size_t k = 0; k < ids.size(); ++k) {
                ids[k] = static_cast<int>(ids.size() - 1 - k);
            }
            break;
    }
    if (!(policy == callbacks.policy)) {
        callbacks.resume_change.policy = policy;
    } else {
        callbacks.resume_change.early_stopping = ids;
    }
}

void apply(BuggifySwitch on, Rng& rng, Scenario& s) {
    switch (on) {
        case BuggifySwitch::crash_after_stop_decision:
            s.faults.push_back(aimed_crash(rng, FaultAim::after_stop_decision));
            break;
        case BuggifySwitch::crash_after_stop_persisted:
            s.faults.push_back(aimed_crash(rng, FaultAim::after_stop_persisted));
            break;
        case BuggifySwitch::crash_after_sidecar_lower:
            s.faults.push_back(aimed_crash(rng, FaultAim::after_sidecar_lower));
            break;
        case BuggifySwitch::warmup_on_evaluation:
            put_warmup_on_evaluation(rng, s);
            break;
        case BuggifySwitch::repeat_best_score:
            repeat_best_score(rng, s.score);
            if (roll(rng, kSwarm.buggify.tie_policy_stop)) {
                s.callbacks.policy.tie_policy = TiePolicy::stop;
            }
            // Tie policy stop ends the run at its first tie: one right after a warm-up that reset
            // the streak would never meet a non-zero one, so this seed trains without a warm-up
            // (unless the warm-up boundary is what another switch aims at).
            if (s.callbacks.policy.tie_policy == TiePolicy::stop &&
                std::find(s.buggify.begin(), s.buggify.end(),
                          kBuggifySwitchNames.name(BuggifySwitch::warmup_on_evaluation)) == s.buggify.end()) {
                s.callbacks.policy.patience_start_step = 0;
            }
            break;
        case BuggifySwitch::evaluation_on_epoch_end:
            put_evaluation_on_epoch_end(rng, s);
            break;
        case BuggifySwitch::early_stopping_acts:
            make_early_stopping_act(rng, s.callbacks);
            break;
        case BuggifySwitch::kill_blocked_rank:
            s.faults.push_back(blocked_rank_death(rng, s));
            break;
        case BuggifySwitch::kill_mid_broadcast:
            s.faults.push_back(mid_broadcast_death(rng, s));
            break;
        case BuggifySwitch::config_change_on_resume:
            change_configuration_on_resume(rng, s.callbacks);
            break;
    }
}

}  // namespace

void buggify(Rng rng, Scenario& s) {
    std::array<bool, kBuggifySwitchNames.size()> on{};
    for (std::size_t i = 0; i < on.size(); ++i) {
        const bool ties = static_cast<BuggifySwitch>(i) == BuggifySwitch::repeat_best_score;
        on[i] = roll(rng, ties ? kSwarm.buggify.repeat_best_score : kSwarm.buggify.each);
    }
    if (s.job.ranks < 2) {
        on[static_cast<std::size_t>(BuggifySwitch::kill_blocked_rank)] = false;
        on[static_cast<std::size_t>(BuggifySwitch::kill_mid_broadcast)] = false;
    }
    // The schedule first, the warm-up boundary on it after.
    constexpr std::array kOrder = {
        BuggifySwitch::evaluation_on_epoch_end,   BuggifySwitch::warmup_on_evaluation,
        BuggifySwitch::repeat_best_score,         BuggifySwitch::early_stopping_acts,
        BuggifySwitch::crash_after_stop_decision, BuggifySwitch::crash_after_stop_persisted,
        BuggifySwitch::crash_after_sidecar_lower, BuggifySwitch::kill_blocked_rank,
        BuggifySwitch::kill_mid_broadcast,        BuggifySwitch::config_change_on_resume};
    static_assert(kOrder.size() == kBuggifySwitchNames.size());
    for (const auto which : kOrder) {
        if (on[static_cast<std::size_t>(which)]) {
            apply(which, rng, s);
            s.buggify.emplace_back(kBuggifySwitchNames.name(which));
        }
    }
}

}  // namespace ckpt::sim
