// The shrink loop: passes over faults, steps, ranks, scores, settings and fault fields, each a
// ddmin or a halving search; a candidate is kept when it is valid, still fails and is no larger
// in any dimension. The passes repeat until a whole round changes nothing or the budget is spent.
#include "sim/explore/scenario_shrinker.hpp"

#include <algorithm>
#include <exception>

#include "sim/explore/scenario_settings.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {

bool ScenarioSize::no_larger_than(const ScenarioSize& o) const noexcept {
    return faults <= o.faults && steps <= o.steps && ranks <= o.ranks && scores <= o.scores &&
           script <= o.script && settings <= o.settings;
}

std::string ScenarioSize::describe() const {
    return "faults " + std::to_string(faults) + ", steps " + std::to_string(steps) + ", ranks " +
           std::to_string(ranks) + ", scores " + std::to_string(scores) + ", script " +
           std::to_string(script) + ", settings " + std::to_string(settings);
}

std::vector<std::string> non_default_settings(const Scenario& scenario) {
    std::vector<std::string> names;
    for (const auto& field : setting_fields()) {
        if (field.differs(scenario)) {
            names.emplace_back(field.name);
        }
    }
    return names;
}

ScenarioSize size_of(const Scenario& s, std::uint64_t evaluations) {
    return {s.faults.size(), s.trainer.max_steps,   s.job.ranks,
            evaluations,     s.score.script.size(), non_default_settings(s).size()};
}

ShrinkJudge property_judge(Property property, std::optional<mutants::Mutant> mutant,
                           std::optional<CallbackSpec> callback) {
    return [property, mutant, callback](const Scenario& scenario) {
        std::optional<mutants::MutantScope> scope;
        if (mutant) {
            scope.emplace(*mutant);
        }
        RunOptions options;
        options.external_callback = callback ? &*callback : nullptr;
        const auto result = run_scenario(scenario, options);
        if (result.outcome == Outcome::harness_error) {
            return ShrinkVerdict{false, result.stats.evaluations};
        }
        if (property == Property::P8) {
            return ShrinkVerdict{run_scenario(scenario, options).trace_hash != result.trace_hash,
                                 result.stats.evaluations};
        }
        return ShrinkVerdict{!result.held(property), result.stats.evaluations};
    };
}

namespace {

bool valid(const Scenario& s) {
    try {
        s.validate();
        return true;
    } catch (const ScenarioError&) {
        return false;
    }
}

// "3" or "2-4": a 1-based range of list positions.
std::string positions(std::size_t begin, std::size_t end) {
    return end - begin == 1 ? std::to_string(begin + 1)
                            : std::to_string(begin + 1) + "-" + std::to_string(end);
}

// Halving toward the target: the target itself, then nearer and nearer the current value.
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

std::int64_t halved(std::int64_t steps, std::int64_t floor) {
    return std::max(floor, (steps + 1) / 2);
}

// Every step-valued field halved: the same story on a time axis half as long.
Scenario on_half_the_steps(Scenario s) {
    s.trainer.max_steps = halved(s.trainer.max_steps, 1);
    s.trainer.save_steps = halved(s.trainer.save_steps, 1);
    s.trainer.steps_per_epoch = halved(s.trainer.steps_per_epoch, 1);
    for (auto& step : s.callbacks.gate_steps) {
        step = halved(step, 1);
    }
    s.callbacks.gate_steps.erase(std::unique(s.callbacks.gate_steps.begin(), s.callbacks.gate_steps.end()),
                                 s.callbacks.gate_steps.end());
    if (s.callbacks.regular_steps) {
        *s.callbacks.regular_steps = halved(*s.callbacks.regular_steps, 1);
    }
    s.callbacks.policy.patience_start_step /= 2;
    if (s.callbacks.resume_change.policy) {
        s.callbacks.resume_change.policy->patience_start_step /= 2;
    }
    for (auto& fault : s.faults) {
        fault.at_step /= 2;
    }
    return s;
}

// Fewer ranks: faults naming a rank that is gone name the last one; one rank has no rank scope.
Scenario with_ranks(Scenario s, int ranks) {
    s.job.ranks = ranks;
    for (auto& fault : s.faults) {
        fault.rank = std::min(fault.rank, ranks - 1);
        if (ranks == 1 && fault.scope == CrashScope::rank) {
            fault.scope = CrashScope::job;
        }
    }
    return s;
}

class Shrinker {
  public:
    Shrinker(const ShrinkJudge& judge, const ShrinkOptions& options, ShrinkResult& result)
        : judge_(judge), options_(options), result_(result) {}

    // Runs the candidate; keeps it when it still fails and grew nowhere.
    bool attempt(Scenario candidate, const std::string& what) {
        // A change the scenario file cannot show (a field the fault's action does not use) is no
        // reduction, however often it "still fails".
        if (out_of_budget() || !valid(candidate) || candidate.to_json() == current().to_json()) {
            return false;
        }
        ++result_.runs;
        ShrinkVerdict verdict;
        try {
            verdict = judge_(candidate);
        } catch (const std::exception&) {
            return false;  // a candidate the simulator rejects is not the same failure
        }
        const auto size = size_of(candidate, verdict.evaluations);
        if (!verdict.fails || !size.no_larger_than(result_.after)) {
            return false;
        }
        result_.scenario = std::move(candidate);
        result_.after = size;
        result_.reductions.push_back({what, size});
        if (options_.on_reduction) {
            options_.on_reduction(result_.reductions.back());
        }
        return true;
    }

    bool out_of_budget() {
        if (result_.runs >= options_.max_runs) {
            result_.budget_exhausted = true;
        }
        return result_.budget_exhausted;
    }

    const Scenario& current() const { return result_.scenario; }

    // ddmin by complements: remove chunks of a list of `count()` items, all of it first, then
    // halves, quarters, ... single items; after a removal, the same granularity again.
    bool ddmin(const std::function<std::size_t()>& count,
               const std::function<bool(std::size_t, std::size_t)>& try_remove) {
        bool any = false;
        std::size_t chunks = 1;
        while (count() > 0 && !out_of_budget()) {
            const auto n = count();
            chunks = std::min(chunks, n);
            const auto chunk = (n + chunks - 1) / chunks;
            bool removed = false;
            for (std::size_t begin = 0; begin < n && !removed; begin += chunk) {
                removed = try_remove(begin, std::min(begin + chunk, n));
            }
            if (removed) {
                any = true;
                chunks = std::max<std::size_t>(chunks - 1, 1);
            } else if (chunks >= n) {
                break;
            } else {
                chunks = std::min(chunks * 2, n);
            }
        }
        return any;
    }

    // The smallest value toward `target` that still fails, by repeated halving searches.
    bool search(const std::string& name, const std::function<std::int64_t(const Scenario&)>& get,
                const std::function<Scenario(Scenario, std::int64_t)>& set, std::int64_t target) {
        bool any = false;
        for (bool moved = true; moved && !out_of_budget();) {
            moved = false;
            const auto value = get(current());
            for (const auto next : toward(value, target)) {
                if (attempt(set(current(), next),
                            name + " " + std::to_string(value) + " -> " + std::to_string(next))) {
                    moved = any = true;
                    break;
                }
            }
        }
        return any;
    }

  private:
    const ShrinkJudge& judge_;
    const ShrinkOptions& options_;
    ShrinkResult& result_;
};

bool shrink_faults(Shrinker& s) {
    return s.ddmin([&] { return s.current().faults.size(); },
                   [&](std::size_t begin, std::size_t end) {
                       auto c = s.current();
                       std::string kinds;
                       for (auto i = begin; i < end; ++i) {
                           kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(c.faults[i].action));
                       }
                       const auto total = c.faults.size();
                       c.faults.erase(c.faults.begin() + static_cast<std::ptrdiff_t>(begin),
                                      c.faults.begin() + static_cast<std::ptrdiff_t>(end));
                       return s.attempt(std::move(c), "removed fault" +
                                                          std::string(end - begin > 1 ? "s " : " ") +
                                                          positions(begin, end) + " of " +
                                                          std::to_string(total) + " (" + kinds + ")");
                   });
}

bool shrink_steps(Shrinker& s) {
    bool any = false;
    while (s.current().trainer.max_steps > 1 &&
           s.attempt(on_half_the_steps(s.current()),
                     "halved every step (max_steps " + std::to_string(s.current().trainer.max_steps) +
                         ", save_steps " + std::to_string(s.current().trainer.save_steps) +
                         ", fault steps)")) {
        any = true;
    }
    any |= s.search(
        "max_steps", [](const Scenario& c) { return c.trainer.max_steps; },
        [](Scenario c, std::int64_t v) {
            c.trainer.max_steps = v;
            return c;
        },
        1);
    return any;
}

bool shrink_ranks(Shrinker& s) {
    return s.search(
        "ranks", [](const Scenario& c) { return std::int64_t{c.job.ranks}; },
        [](Scenario c, std::int64_t v) { return with_ranks(std::move(c), static_cast<int>(v)); }, 1);
}

bool shrink_scores(Shrinker& s) {
    return s.ddmin([&] { return s.current().score.script.size(); },
                   [&](std::size_t begin, std::size_t end) {
                       auto c = s.current();
                       const auto total = c.score.script.size();
                       c.score.script.erase(c.score.script.begin() + static_cast<std::ptrdiff_t>(begin),
                                            c.score.script.begin() + static_cast<std::ptrdiff_t>(end));
                       return s.attempt(std::move(c),
                                        "dropped scripted score" + std::string(end - begin > 1 ? "s " : " ") +
                                            positions(begin, end) + " of " + std::to_string(total));
                   });
}

// ddmin over the settings away from their defaults: put a chunk of them back at once.
bool shrink_settings(Shrinker& s) {
    bool any = s.ddmin([&] { return non_default_settings(s.current()).size(); },
                       [&](std::size_t begin, std::size_t end) {
                           auto c = s.current();
                           const auto names = non_default_settings(c);
                           std::string reset;
                           for (auto i = begin; i < end; ++i) {
                               for (const auto& field : setting_fields()) {
                                   if (field.name == names[i]) {
                                       field.reset(c);
                                   }
                               }
                               reset += (reset.empty() ? "" : ", ") + names[i];
                           }
                           return s.attempt(std::move(c), "default " + reset);
                       });
    any |= s.search(
        "policy.patience", [](const Scenario& c) { return c.callbacks.policy.patience; },
        [](Scenario c, std::int64_t v) {
            c.callbacks.policy.patience = v;
            return c;
        },
        1);
    any |= s.search(
        "save_total_limit", [](const Scenario& c) { return c.trainer.save_total_limit; },
        [](Scenario c, std::int64_t v) {
            c.trainer.save_total_limit = v;
            return c;
        },
        1);
    any |= s.search(
        "policy.patience_start_step",
        [](const Scenario& c) { return c.callbacks.policy.patience_start_step; },
        [](Scenario c, std::int64_t v) {
            c.callbacks.policy.patience_start_step = v;
            return c;
        },
        0);
    return any;
}

// Each fault's fields toward the plainest fault of its kind: a job-wide process kill at the
// first occurrence, unaimed, on rank 0, at step 0, with EIO.
bool shrink_fault_fields(Shrinker& s) {
    bool any = false;
    for (std::size_t i = 0; i < s.current().faults.size() && !s.out_of_budget(); ++i) {
        const auto label = "fault " + std::to_string(i + 1) + " ";
        const auto plain = [&](bool differs, const char* what, void (*make_plain)(PlannedFault&)) {
            if (differs) {
                auto c = s.current();
                make_plain(c.faults[i]);
                any |= s.attempt(std::move(c), label + what);
            }
        };
        plain(s.current().faults[i].aim != FaultAim::none, "unaimed",
              [](PlannedFault& g) { g.aim = FaultAim::none; });
        plain(s.current().faults[i].scope != CrashScope::job, "job-wide",
              [](PlannedFault& g) { g.scope = CrashScope::job; });
        plain(s.current().faults[i].kind != CrashKind::process_kill, "a process kill",
              [](PlannedFault& g) { g.kind = CrashKind::process_kill; });
        plain(s.current().faults[i].power_loss != PowerLossMode::strict, "strict power loss",
              [](PlannedFault& g) { g.power_loss = PowerLossMode::strict; });
        plain(s.current().faults[i].rank != 0, "on rank 0", [](PlannedFault& g) { g.rank = 0; });
        plain(s.current().faults[i].error != FaultKind::eio, "EIO",
              [](PlannedFault& g) { g.error = FaultKind::eio; });
        any |= s.search(
            label + "occurrence", [i](const Scenario& c) { return std::int64_t{c.faults[i].occurrence}; },
            [i](Scenario c, std::int64_t v) {
                c.faults[i].occurrence = static_cast<std::uint32_t>(v);
                return c;
            },
            1);
        any |= s.search(
            label + "at_step", [i](const Scenario& c) { return c.faults[i].at_step; },
            [i](Scenario c, std::int64_t v) {
                c.faults[i].at_step = v;
                return c;
            },
            0);
    }
    return any;
}

}  // namespace

ShrinkResult shrink_scenario(const Scenario& scenario, const ShrinkJudge& judge,
                             const ShrinkOptions& options) {
    ShrinkResult result;
    result.scenario = scenario;
    ShrinkVerdict verdict;
    try {
        verdict = judge(scenario);
    } catch (const std::exception&) {
        verdict.fails = false;
    }
    result.input_fails = verdict.fails;
    result.before = result.after = size_of(scenario, verdict.evaluations);
    if (!verdict.fails) {
        return result;
    }
    Shrinker shrinker(judge, options, result);
    // The biggest cuts first: whole faults, then the time axis, ranks, scores and settings.
    for (bool progress = true; progress && !shrinker.out_of_budget();) {
        progress = false;
        progress |= shrink_faults(shrinker);
        progress |= shrink_steps(shrinker);
        progress |= shrink_ranks(shrinker);
        progress |= shrink_scores(shrinker);
        progress |= shrink_settings(shrinker);
        progress |= shrink_fault_fields(shrinker);
    }
    return result;
}

}  // namespace ckpt::sim
