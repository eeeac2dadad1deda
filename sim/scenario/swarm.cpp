// The swarm: every seed draws its whole configuration and fault mix (swarm testing), so a
// default exploration covers feature combinations no hand-written scenario list would.
#include "sim/base/rng.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {
namespace {

int draw_ranks(Rng& rng) {
    const auto roll = rng.below(100);
    if (roll < 30) {
        return 1;
    }
    if (roll < 55) {
        return 2;
    }
    if (roll < 80) {
        return rng.uniform(3, 4);
    }
    return rng.uniform(5, 8);
}

PlannedFault draw_crash(Rng& rng, int ranks) {
    PlannedFault fault;
    fault.action = FaultAction::crash;
    fault.point = static_cast<CrashPoint>(rng.below(kCrashPointCount));
    fault.occurrence = rng.uniform(1U, fault.point == CrashPoint::step_end ? 400U : 3U);
    fault.kind = rng.chance(1, 2) ? CrashKind::process_kill : CrashKind::power_loss;
    fault.power_loss = static_cast<PowerLossMode>(rng.below(3));
    // Power loss takes the whole node; a single process kill can hit one rank.
    if (fault.kind == CrashKind::process_kill && ranks > 1 && rng.chance(1, 4)) {
        fault.scope = CrashScope::rank;
        fault.rank = rng.uniform(0, ranks - 1);
    }
    return fault;
}

PlannedFault draw_io_error(Rng& rng) {
    PlannedFault fault;
    fault.action = FaultAction::io_error;
    fault.target = static_cast<IoTarget>(rng.below(6));
    fault.error = static_cast<FaultKind>(rng.uniform(1, 3));  // enospc, eio or short_write
    fault.occurrence = rng.uniform(1U, 4U);
    return fault;
}

PlannedFault draw_at_step(Rng& rng, FaultAction action, std::int64_t max_steps, int ranks) {
    PlannedFault fault;
    fault.action = action;
    fault.at_step = rng.uniform<std::int64_t>(1, max_steps);
    if (action == FaultAction::rank_death) {
        fault.rank = rng.uniform(0, ranks - 1);
    }
    return fault;
}

std::vector<PlannedFault> draw_faults(Rng& rng, const Scenario& s) {
    // Swarm testing: each kind is on or off for this seed, then the enabled kinds draw events.
    const bool crashes = rng.chance(7, 10);
    const bool io_errors = rng.chance(1, 4);
    const bool corrupt_sidecar = rng.chance(1, 12);
    const bool corrupt_checkpoint = rng.chance(1, 12);
    const bool rank_death = s.ranks > 1 && rng.chance(1, 10);
    const bool preemption = rng.chance(1, 5);
    std::vector<PlannedFault> faults;
    const auto repeat = [&](bool enabled, auto&& draw) {
        if (!enabled) {
            return;
        }
        const auto count = rng.uniform(1, 2);
        for (int i = 0; i < count; ++i) {
            faults.push_back(draw());
        }
    };
    repeat(crashes, [&] { return draw_crash(rng, s.ranks); });
    repeat(io_errors, [&] { return draw_io_error(rng); });
    repeat(corrupt_sidecar,
           [&] { return draw_at_step(rng, FaultAction::corrupt_sidecar, s.max_steps, s.ranks); });
    repeat(corrupt_checkpoint,
           [&] { return draw_at_step(rng, FaultAction::corrupt_checkpoint, s.max_steps, s.ranks); });
    repeat(rank_death, [&] { return draw_at_step(rng, FaultAction::rank_death, s.max_steps, s.ranks); });
    repeat(preemption, [&] { return draw_at_step(rng, FaultAction::preemption, s.max_steps, s.ranks); });
    if (faults.empty()) {
        faults.push_back(draw_crash(rng, s.ranks));
    }
    return faults;
}

}  // namespace

Scenario draw_scenario(std::uint64_t seed) {
    Rng rng = Rng(seed).derive("scenario");
    Scenario s;
    s.seed = seed;
    s.ranks = draw_ranks(rng);
    s.max_steps = rng.uniform<std::int64_t>(400, 1400);
    s.steps_per_epoch = rng.uniform<std::int64_t>(60, 400);
    s.save_strategy = rng.chance(1, 5) ? SaveStrategy::epoch : SaveStrategy::steps;
    s.save_steps = rng.uniform<std::int64_t>(20, 60);
    if (rng.chance(1, 2)) {
        s.gate_steps = {10, 25, 50};
    }
    if (rng.chance(3, 10)) {
        s.regular_steps = rng.uniform<std::int64_t>(40, 120);
    }
    s.policy.patience = rng.uniform<std::int64_t>(2, 6);
    s.policy.tie_policy = static_cast<TiePolicy>(rng.below(4));
    s.policy.patience_start_step = rng.chance(1, 2) ? 0 : rng.uniform<std::int64_t>(50, 200);
    s.save_total_limit = rng.chance(3, 5) ? 1 : rng.uniform<std::int64_t>(2, 3);
    s.protect_best_in_rotation = rng.chance(3, 10);
    s.resume_rule = rng.chance(1, 4) ? ResumeRule::transformers : ResumeRule::fixed;
    s.early_stopping_callbacks = rng.uniform(0, 3);
    s.early_stopping_state_keys = rng.chance(1, 2);
    s.score.kind = static_cast<ScoreKind>(rng.below(4));
    if (s.score.kind == ScoreKind::scripted) {
        const auto length = rng.uniform(8, 20);
        for (int i = 0; i < length; ++i) {
            s.score.script.push_back(static_cast<double>(rng.uniform(0, 40)) / 40.0);
        }
    }
    s.score.noisy_replay = rng.chance(1, 2);
    s.score.external_baseline = rng.chance(3, 10);
    s.faults = draw_faults(rng, s);
    s.watchdog = rng.chance(17, 20);
    return s;
}

}  // namespace ckpt::sim
