#include "properties/support/scenario_minimiser.hpp"

#include <algorithm>
#include <vector>

namespace ckpt::properties {
namespace {

using sim::Scenario;

// Values strictly between `target` and `value`, nearest the target first, halving the distance.
std::vector<std::int64_t> toward(std::int64_t value, std::int64_t target) {
    std::vector<std::int64_t> out;
    if (value == target) {
        return out;
    }
    out.push_back(target);
    for (std::int64_t gap = (value - target) / 2; gap != 0; gap /= 2) {
        out.push_back(value - gap);
    }
    return out;
}

// A scenario with fewer ranks: faults that named a rank that is gone name the last one, and a
// rank-scoped crash of a single-rank job becomes a job crash.
Scenario with_ranks(Scenario s, int ranks) {
    s.job.ranks = ranks;
    for (auto& fault : s.faults) {
        fault.rank = std::min(fault.rank, ranks - 1);
        if (ranks == 1 && fault.scope == sim::CrashScope::rank) {
            fault.scope = sim::CrashScope::job;
        }
    }
    return s;
}

std::vector<Scenario> fault_simplifications(const Scenario& s) {
    std::vector<Scenario> out;
    for (std::size_t i = 0; i < s.faults.size(); ++i) {
        auto fewer = s;
        fewer.faults.erase(fewer.faults.begin() + static_cast<std::ptrdiff_t>(i));
        out.push_back(fewer);
    }
    for (std::size_t i = 0; i < s.faults.size(); ++i) {
        const auto& f = s.faults[i];
        const auto vary = [&](auto&& change) {
            auto c = s;
            change(c.faults[i]);
            out.push_back(c);
        };
        for (const auto occurrence : toward(f.occurrence, 1)) {
            vary([&](sim::PlannedFault& g) { g.occurrence = static_cast<std::uint32_t>(occurrence); });
        }
        for (const auto step : toward(f.at_step, 1)) {
            vary([&](sim::PlannedFault& g) { g.at_step = step; });
        }
        if (f.scope != sim::CrashScope::job) {
            vary([](sim::PlannedFault& g) { g.scope = sim::CrashScope::job; });
        }
        if (f.kind != sim::CrashKind::process_kill) {
            vary([](sim::PlannedFault& g) { g.kind = sim::CrashKind::process_kill; });
        }
        if (f.power_loss != sim::PowerLossMode::strict) {
            vary([](sim::PlannedFault& g) { g.power_loss = sim::PowerLossMode::strict; });
        }
        if (f.rank != 0) {
            vary([](sim::PlannedFault& g) { g.rank = 0; });
        }
    }
    return out;
}

std::vector<Scenario> score_simplifications(const Scenario& s) {
    std::vector<Scenario> out;
    if (s.score.kind != sim::ScoreKind::random_walk) {
        auto c = s;
        c.score.kind = sim::ScoreKind::random_walk;
        c.score.script.clear();
        out.push_back(c);
    }
    for (std::size_t i = 0; s.score.script.size() > 1 && i < s.score.script.size(); ++i) {
        auto c = s;
        c.score.script.erase(c.score.script.begin() + static_cast<std::ptrdiff_t>(i));
        out.push_back(c);
    }
    if (s.score.noisy_replay) {
        auto c = s;
        c.score.noisy_replay = false;
        out.push_back(c);
    }
    if (s.score.external_baseline) {
        auto c = s;
        c.score.external_baseline = false;
        out.push_back(c);
    }
    return out;
}

std::vector<Scenario> setting_simplifications(const Scenario& s) {
    std::vector<Scenario> out;
    const auto vary = [&](auto&& change) {
        auto c = s;
        change(c);
        out.push_back(c);
    };
    if (!s.callbacks.gate_steps.empty()) {
        vary([](Scenario& c) { c.callbacks.gate_steps.clear(); });
    }
    if (s.callbacks.regular_steps) {
        vary([](Scenario& c) { c.callbacks.regular_steps.reset(); });
    }
    for (const auto n : toward(s.callbacks.early_stopping_callbacks, 0)) {
        vary([&](Scenario& c) { c.callbacks.early_stopping_callbacks = static_cast<int>(n); });
    }
    if (s.callbacks.early_stopping_state_keys) {
        vary([](Scenario& c) { c.callbacks.early_stopping_state_keys = false; });
    }
    if (s.trainer.protect_best_in_rotation) {
        vary([](Scenario& c) { c.trainer.protect_best_in_rotation = false; });
    }
    if (s.trainer.resume_rule != sim::ResumeRule::fixed) {
        vary([](Scenario& c) { c.trainer.resume_rule = sim::ResumeRule::fixed; });
    }
    if (s.trainer.save_total_limit != 1) {
        vary([](Scenario& c) { c.trainer.save_total_limit = 1; });
    }
    if (s.trainer.save_strategy != sim::SaveStrategy::steps) {
        vary([](Scenario& c) { c.trainer.save_strategy = sim::SaveStrategy::steps; });
    }
    if (!s.job.watchdog) {
        vary([](Scenario& c) { c.job.watchdog = true; });
    }
    if (s.callbacks.policy.tie_policy != TiePolicy::reset) {
        vary([](Scenario& c) { c.callbacks.policy.tie_policy = TiePolicy::reset; });
    }
    for (const auto n : toward(s.callbacks.policy.patience_start_step, 0)) {
        vary([&](Scenario& c) { c.callbacks.policy.patience_start_step = n; });
    }
    for (const auto n : toward(s.callbacks.policy.patience, 1)) {
        vary([&](Scenario& c) { c.callbacks.policy.patience = n; });
    }
    for (const auto n : toward(s.trainer.save_steps, 1)) {
        vary([&](Scenario& c) { c.trainer.save_steps = n; });
    }
    for (const auto n : toward(s.trainer.steps_per_epoch, 1)) {
        vary([&](Scenario& c) { c.trainer.steps_per_epoch = n; });
    }
    if (s.seed != 0) {
        vary([](Scenario& c) { c.seed = 0; });
    }
    return out;
}

// Every one-step simplification of `s`, the ones that remove the most first.
std::vector<Scenario> simplifications(const Scenario& s) {
    std::vector<Scenario> out;
    const auto append = [&out](std::vector<Scenario> more) {
        out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    };
    for (const auto steps : toward(s.trainer.max_steps, 1)) {
        auto c = s;
        c.trainer.max_steps = steps;
        out.push_back(c);
    }
    for (const auto ranks : toward(s.job.ranks, 1)) {
        out.push_back(with_ranks(s, static_cast<int>(ranks)));
    }
    append(fault_simplifications(s));
    append(score_simplifications(s));
    append(setting_simplifications(s));
    return out;
}

bool valid(const Scenario& s) {
    try {
        s.validate();
        return true;
    } catch (const sim::ScenarioError&) {
        return false;
    }
}

}  // namespace

sim::Scenario minimise(sim::Scenario scenario, const std::function<bool(const sim::Scenario&)>& still_fails,
                       int max_runs) {
    int runs = 0;
    bool progress = true;
    while (progress && runs < max_runs) {
        progress = false;
        for (auto& candidate : simplifications(scenario)) {
            if (runs >= max_runs) {
                break;
            }
            if (!valid(candidate)) {
                continue;
            }
            ++runs;
            if (still_fails(candidate)) {
                scenario = std::move(candidate);
                progress = true;
                break;
            }
        }
    }
    return scenario;
}

}  // namespace ckpt::properties
