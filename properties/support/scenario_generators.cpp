// The scenario generators: raw draws that RapidCheck shrinks one by one, fitted afterwards into a
// Scenario that passes validate(). Every range and odds comes from kSwarm, every enum count from
// its name table; what is this file's own is only how the draws shrink.
#include "properties/support/scenario_generators.hpp"

#include <algorithm>
#include <vector>

#include "policy/core/tie_policy.hpp"
#include "properties/support/size_free_range.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/scenario/swarm_ranges.hpp"

namespace ckpt::properties {
namespace {

using sim::CrashKind;
using sim::CrashPoint;
using sim::CrashScope;
using sim::FaultAction;
using sim::kSwarm;
using sim::PlannedFault;
using sim::Scenario;

// Only a run's length and its number of faults grow with the size; every other choice is uniform.
using properties::uniform;

// The swarm's inclusive range as RapidCheck's half-open one.
template <typename T>
rc::Gen<T> uniform(sim::Range<T> range) {
    return uniform<T>(range.lo, range.hi + 1);
}

// A feature that is on with the swarm's odds and shrinks to off. Drawn as an integer so
// the probability can match the swarm's instead of a coin flip.
rc::Gen<bool> gen_chance(sim::Odds odds) {
    const int num = static_cast<int>(odds.numerator);
    const int den = static_cast<int>(odds.denominator);
    return rc::gen::map(uniform(0, den), [num, den](int roll) { return roll >= den - num; });
}

// One of `options`, shrinking toward the first. (rc::gen::element never shrinks.)
template <typename T>
rc::Gen<T> choice(std::vector<T> options) {
    const int count = static_cast<int>(options.size());
    return rc::gen::map(uniform(0, count), [options = std::move(options)](int i) {
        return options[static_cast<std::size_t>(i)];
    });
}

// The raw draws behind one fault. Ranks and steps are kept independent of the scenario (a rank
// index, a per-mille position in the run) and fitted to it afterwards, so shrinking the
// scenario's ranks or length never invalidates a fault, and a fault keeps its relative place.
struct FaultDraw {
    int action_roll = 0;  // shrinks toward a crash, the commonest and simplest fault
    int point = 0;
    int step_end_permille = 0;
    std::uint32_t occurrence = 1;
    bool power_loss = false;
    int power_loss_mode = 0;
    bool rank_scoped = false;
    int rank = 0;
    int at_permille = 0;
    int target = 0;
    int error = 0;
    std::uint32_t io_occurrence = 1;
};

// enospc, eio, short_write: the kinds after `none`, drawn as an index from the first of them.
constexpr int kInjectedFaultKinds =
    static_cast<int>(sim::kFaultKindNames.size() - sim::kFirstInjectedFaultKind);

rc::Gen<FaultDraw> gen_fault_draw() {
    return rc::gen::build<FaultDraw>(
        rc::gen::set(&FaultDraw::action_roll, uniform(0, 100)),
        rc::gen::set(&FaultDraw::point, uniform(0, static_cast<int>(sim::kCrashPointCount))),
        // step_end is passed once per step, so its occurrence is a place in the run; the other
        // points are passed a few times per run (swarm_ranges.hpp).
        rc::gen::set(&FaultDraw::step_end_permille, uniform(0, 1000)),
        rc::gen::set(&FaultDraw::occurrence, uniform(kSwarm.faults.other_point_occurrence)),
        rc::gen::set(&FaultDraw::power_loss, gen_chance(kSwarm.faults.process_kill.complement())),
        rc::gen::set(&FaultDraw::power_loss_mode,
                     uniform(0, static_cast<int>(sim::kPowerLossModeNames.size()))),
        rc::gen::set(&FaultDraw::rank_scoped, gen_chance(kSwarm.faults.rank_scoped_kill)),
        rc::gen::set(&FaultDraw::rank, uniform(0, sim::kMaxRanks)),
        rc::gen::set(&FaultDraw::at_permille, uniform(0, 1000)),
        rc::gen::set(&FaultDraw::target, uniform(0, static_cast<int>(sim::kIoTargetNames.size()))),
        rc::gen::set(&FaultDraw::error, uniform(0, kInjectedFaultKinds)),
        rc::gen::set(&FaultDraw::io_occurrence, uniform(kSwarm.faults.io_error_occurrence)));
}

// The swarm enables each fault kind per seed with its own odds (kSwarm.faults: crashes 7/10,
// I/O errors 1/4, preemption 1/5, rank death 1/10, each corruption 1/12); these bands keep about
// those proportions among the faults of one scenario.
FaultAction action_of(int roll) {
    if (roll < 50) {
        return FaultAction::crash;
    }
    if (roll < 65) {
        return FaultAction::io_error;
    }
    if (roll < 72) {
        return FaultAction::corrupt_sidecar;
    }
    if (roll < 79) {
        return FaultAction::corrupt_checkpoint;
    }
    if (roll < 87) {
        return FaultAction::rank_death;
    }
    return FaultAction::preemption;
}

// Step 1 to max_steps, at a fixed fraction of the run whatever its length.
std::uint32_t at_permille(int permille, std::int64_t max_steps) {
    return static_cast<std::uint32_t>(1 + static_cast<std::int64_t>(permille) * (max_steps - 1) / 1000);
}

PlannedFault fit_fault(const FaultDraw& draw, int ranks, std::int64_t max_steps) {
    PlannedFault fault;
    fault.action = action_of(draw.action_roll);
    switch (fault.action) {
        case FaultAction::crash:
            fault.point = static_cast<CrashPoint>(draw.point);
            fault.occurrence = fault.point == CrashPoint::step_end
                                   ? at_permille(draw.step_end_permille, max_steps)
                                   : draw.occurrence;
            fault.kind = draw.power_loss ? CrashKind::power_loss : CrashKind::process_kill;
            fault.power_loss = static_cast<sim::PowerLossMode>(draw.power_loss_mode);
            // Power loss takes the whole node; only a process kill can hit a single rank.
            if (!draw.power_loss && draw.rank_scoped && ranks > 1) {
                fault.scope = CrashScope::rank;
                fault.rank = draw.rank % ranks;
            }
            break;
        case FaultAction::io_error:
            fault.target = static_cast<sim::IoTarget>(draw.target);
            fault.error =
                static_cast<sim::FaultKind>(draw.error + static_cast<int>(sim::kFirstInjectedFaultKind));
            fault.occurrence = draw.io_occurrence;
            break;
        case FaultAction::rank_death:
            fault.rank = draw.rank % ranks;
            [[fallthrough]];
        case FaultAction::corrupt_sidecar:
        case FaultAction::corrupt_checkpoint:
        case FaultAction::preemption:
            fault.at_step = at_permille(draw.at_permille, max_steps);
            break;
    }
    return fault;
}

// The raw draws behind a scenario, each shrunk on its own (gen::build); fit_scenario turns them
// into a valid Scenario. Optional values are drawn whether or not their feature is on, so a
// feature and its value shrink independently.
struct ScenarioDraw {
    std::int64_t max_steps = 1;
    int ranks_roll = 0;
    int ranks_pick = 0;
    std::vector<FaultDraw> faults;
    sim::ScoreModelConfig score;
    std::int64_t steps_per_epoch = 60;
    bool epoch_saves = false;
    std::int64_t save_steps = 20;
    bool gate_steps = false;
    bool regular = false;
    std::int64_t regular_steps = 40;
    std::int64_t patience = 2;
    TiePolicy tie_policy = TiePolicy::reset;
    bool warmup = false;
    std::int64_t patience_start_step = 50;
    bool several_kept = false;
    std::int64_t save_total_limit = 2;
    bool protect_best = false;
    bool transformers_resume = false;
    int early_stopping_callbacks = 0;
    bool early_stopping_state_keys = false;
    bool mixed_state_keys = false;
    bool upgraded_across_resume = false;
    bool watchdog_off = false;
    std::uint64_t seed = 0;
};

// Sized: a small RapidCheck size gives short runs, and the cap bounds a case's cost.
rc::Gen<std::int64_t> gen_max_steps(std::int64_t cap) {
    return rc::gen::withSize([cap](int size) {
        const auto limit = std::min<std::int64_t>(cap, 40 + 8 * static_cast<std::int64_t>(std::max(size, 0)));
        return uniform<std::int64_t>(1, std::max<std::int64_t>(limit, 1) + 1);
    });
}

// Faults grow with the size too: up to six at the default maximum size of 100.
rc::Gen<std::vector<FaultDraw>> gen_fault_draws() {
    return rc::gen::withSize([](int size) {
        return rc::gen::resize(std::clamp(size, 0, 100) / 20 + 1,
                               rc::gen::container<std::vector<FaultDraw>>(gen_fault_draw()));
    });
}

// The swarm's rank mix (kSwarm.ranks): `pick` chooses within the band of `roll`.
int fit_ranks(int roll, int pick) {
    const sim::RankMix& mix = kSwarm.ranks;
    const auto within = [pick](sim::Range<int> band) { return band.lo + pick % (band.hi - band.lo + 1); };
    if (roll < mix.one_rank_below) {
        return 1;
    }
    if (roll < mix.two_ranks_below) {
        return 2;
    }
    if (roll < mix.few_below) {
        return within(mix.few);
    }
    return within(mix.many);
}

// Enough picks to reach every rank count of the widest band.
constexpr int kRankPicks =
    std::max(kSwarm.ranks.few.hi - kSwarm.ranks.few.lo, kSwarm.ranks.many.hi - kSwarm.ranks.many.lo) + 1;

// Every tie policy in declaration order (reset first, the default a policy shrinks to).
std::vector<TiePolicy> all_tie_policies() {
    std::vector<TiePolicy> policies;
    for (std::size_t i = 0; i < sim::enumerator_count<TiePolicy>(); ++i) {
        policies.push_back(static_cast<TiePolicy>(i));
    }
    return policies;
}

// The same generator over a different random stream. RapidCheck's reproduce string records the
// case's Random, and this derivation is a pure function of it, so reproduction still works.
template <typename T>
rc::Gen<T> on_stream(rc::Gen<T> gen, std::uint64_t stream) {
    if (stream == 0) {
        return gen;
    }
    return rc::Gen<T>([gen, stream](const rc::Random& random, int size) {
        rc::Random source(random);
        const rc::Random::Key key{source.next() ^ (stream * 0x9e3779b97f4a7c15ULL), source.next(),
                                  source.next(), source.next()};
        return gen(rc::Random(key), size);
    });
}

Scenario fit_scenario(const ScenarioDraw& d, const ScenarioFocus& focus) {
    Scenario s;
    s.seed = d.seed;
    s.job.ranks = std::max(focus.min_ranks, fit_ranks(d.ranks_roll, d.ranks_pick));
    s.trainer.max_steps = d.max_steps;
    s.trainer.steps_per_epoch = d.steps_per_epoch;
    s.trainer.save_strategy = d.epoch_saves ? sim::SaveStrategy::epoch : sim::SaveStrategy::steps;
    s.trainer.save_steps = d.save_steps;
    if (d.gate_steps) {
        s.callbacks.gate_steps.assign(kSwarm.gates.begin(), kSwarm.gates.end());
    }
    if (d.regular) {
        s.callbacks.regular_steps = d.regular_steps;
    }
    s.callbacks.policy.patience = d.patience;
    s.callbacks.policy.tie_policy = d.tie_policy;
    s.callbacks.policy.patience_start_step = d.warmup ? d.patience_start_step : 0;
    s.trainer.save_total_limit = d.several_kept ? d.save_total_limit : 1;
    s.trainer.protect_best_in_rotation = d.protect_best;
    s.trainer.resume_rule = d.transformers_resume ? sim::ResumeRule::transformers : sim::ResumeRule::fixed;
    s.callbacks.early_stopping_callbacks =
        std::max(focus.min_early_stopping_callbacks, d.early_stopping_callbacks);
    s.callbacks.early_stopping_state_keys = d.early_stopping_state_keys;
    s.callbacks.early_stopping_mixed_keys = d.early_stopping_state_keys && d.mixed_state_keys;
    s.callbacks.upgraded_across_resume = d.upgraded_across_resume;
    s.score = d.score;
    for (const auto& fault : d.faults) {
        s.faults.push_back(fit_fault(fault, s.job.ranks, s.trainer.max_steps));
    }
    s.job.watchdog = !d.watchdog_off;
    s.validate();
    return s;
}

}  // namespace

rc::Gen<sim::ScoreModelConfig> gen_score_model() {
    struct ScoreDraw {
        sim::ScoreKind kind = sim::ScoreKind::random_walk;
        std::vector<int> script;
        bool noisy_replay = false;
        bool external_baseline = false;
    };
    // Scripted scores on the swarm's grid: short scripts shrink toward all-zero (every evaluation
    // a tie), which is as simple as a score model gets.
    const auto script = rc::gen::withSize([](int size) {
        return rc::gen::resize(
            std::clamp(size, 0, 100) / 5,
            rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(uniform(0, kSwarm.score_grid + 1))));
    });
    const auto draw = rc::gen::build<ScoreDraw>(
        // random_walk first: it is the default, and what a score model shrinks to.
        rc::gen::set(
            &ScoreDraw::kind,
            choice<sim::ScoreKind>({sim::ScoreKind::random_walk, sim::ScoreKind::scripted,
                                    sim::ScoreKind::quantised, sim::ScoreKind::improve_then_plateau})),
        rc::gen::set(&ScoreDraw::script, script),
        rc::gen::set(&ScoreDraw::noisy_replay, gen_chance(kSwarm.noisy_replay)),
        rc::gen::set(&ScoreDraw::external_baseline, gen_chance(kSwarm.external_baseline)));
    return rc::gen::map(draw, [](const ScoreDraw& d) {
        sim::ScoreModelConfig config;
        config.kind = d.kind;
        if (d.kind == sim::ScoreKind::scripted) {
            for (const int q : d.script) {
                config.script.push_back(static_cast<double>(q) / kSwarm.score_grid);
            }
        }
        config.noisy_replay = d.noisy_replay;
        config.external_baseline = d.external_baseline;
        return config;
    });
}

rc::Gen<sim::Scenario> gen_scenario(ScenarioFocus focus) {
    const auto draw = rc::gen::build<ScenarioDraw>(
        // Shrinking tries the fields in this order: the run's length, ranks, faults, scores,
        // then the schedule and the policy, and the seed (scores, scheduling, power loss) last.
        rc::gen::set(&ScenarioDraw::max_steps, gen_max_steps(focus.max_steps_cap)),
        rc::gen::set(&ScenarioDraw::ranks_roll, uniform(0, 100)),
        rc::gen::set(&ScenarioDraw::ranks_pick, uniform(0, kRankPicks)),
        rc::gen::set(&ScenarioDraw::faults, gen_fault_draws()),
        rc::gen::set(&ScenarioDraw::score, gen_score_model()),
        rc::gen::set(&ScenarioDraw::gate_steps, gen_chance(kSwarm.gate_steps)),
        rc::gen::set(&ScenarioDraw::regular, gen_chance(kSwarm.regular)),
        rc::gen::set(&ScenarioDraw::regular_steps, uniform(kSwarm.regular_steps)),
        rc::gen::set(&ScenarioDraw::steps_per_epoch, uniform(kSwarm.steps_per_epoch)),
        rc::gen::set(&ScenarioDraw::epoch_saves, gen_chance(kSwarm.epoch_saves)),
        rc::gen::set(&ScenarioDraw::save_steps, uniform(kSwarm.save_steps)),
        rc::gen::set(&ScenarioDraw::patience, uniform(kSwarm.patience)),
        rc::gen::set(&ScenarioDraw::tie_policy, choice<TiePolicy>(all_tie_policies())),
        rc::gen::set(&ScenarioDraw::warmup, gen_chance(kSwarm.no_warmup.complement())),
        rc::gen::set(&ScenarioDraw::patience_start_step, uniform(kSwarm.patience_start_step)),
        rc::gen::set(&ScenarioDraw::several_kept, gen_chance(kSwarm.keep_one.complement())),
        rc::gen::set(&ScenarioDraw::save_total_limit, uniform(kSwarm.save_total_limit)),
        rc::gen::set(&ScenarioDraw::protect_best, gen_chance(kSwarm.protect_best)),
        rc::gen::set(&ScenarioDraw::transformers_resume, gen_chance(kSwarm.transformers_resume)),
        rc::gen::set(&ScenarioDraw::early_stopping_callbacks, uniform(kSwarm.early_stopping_callbacks)),
        rc::gen::set(&ScenarioDraw::early_stopping_state_keys, gen_chance(kSwarm.early_stopping_state_keys)),
        rc::gen::set(&ScenarioDraw::mixed_state_keys, gen_chance(kSwarm.mixed_state_keys)),
        rc::gen::set(&ScenarioDraw::upgraded_across_resume, gen_chance(kSwarm.upgraded_across_resume)),
        rc::gen::set(&ScenarioDraw::watchdog_off, gen_chance(kSwarm.watchdog.complement())),
        rc::gen::set(&ScenarioDraw::seed, rc::gen::arbitrary<std::uint64_t>()));
    return on_stream(rc::gen::map(draw, [focus](const ScenarioDraw& d) { return fit_scenario(d, focus); }),
                     focus.stream);
}

}  // namespace ckpt::properties
