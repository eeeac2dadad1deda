// Delta debugging of a failing scenario: the smallest scenario (fewer faults, steps, ranks,
// scores, non-default settings) that still fails the way the judge says. Deterministic (a fixed
// order of reductions, a budget counted in runs, never in time) and bounded; shared by
// `ckptsim shrink`, `ckptsim mutants` and the property tests. Depends on sim/world and sim/checks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "policy/base/mutants.hpp"
#include "sim/checks/property.hpp"
#include "sim/external/callback_spec.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// How big a scenario is, per dimension. A reduction is accepted only when the result is no larger
// in any dimension, so a shrunk scenario never grows anywhere.
struct ScenarioSize {
    std::uint64_t faults = 0;
    std::int64_t steps = 0;      // max_steps
    std::int64_t ranks = 0;      // world size
    std::uint64_t scores = 0;    // evaluations the run scored (its score sequence), retrained ones included
    std::uint64_t script = 0;    // scripted scores spelled out in the scenario
    std::uint64_t settings = 0;  // configuration fields away from their defaults, buggify record included

    bool no_larger_than(const ScenarioSize& other) const noexcept;
    friend bool operator==(const ScenarioSize&, const ScenarioSize&) = default;
    // "faults 1, steps 40, ranks 1, scores 3, script 0, settings 4"
    std::string describe() const;
};

// Whether a candidate still fails, and how many evaluations its run scored.
struct ShrinkVerdict {
    bool fails = false;
    std::uint64_t evaluations = 0;
};
using ShrinkJudge = std::function<ShrinkVerdict(const Scenario&)>;

// Fails when `property` is violated with `mutant` armed (P8: when two runs' trace hashes differ),
// with `callback` (when given) run in place of the C++ port. A candidate whose external callback
// failed the harness does not fail: a shrink never trades a verdict for a harness error.
ShrinkJudge property_judge(Property property, std::optional<mutants::Mutant> mutant,
                           std::optional<CallbackSpec> callback = std::nullopt);

// The configuration fields of `scenario` away from a default Scenario's, by name.
std::vector<std::string> non_default_settings(const Scenario& scenario);
ScenarioSize size_of(const Scenario& scenario, std::uint64_t evaluations);

// One accepted reduction: what changed, and the size after it.
struct Reduction {
    std::string what;
    ScenarioSize size;
};

struct ShrinkOptions {
    int max_runs = 2000;  // candidate runs before the shrink stops where it is
    // Told each accepted reduction as it happens (the CLI prints it).
    std::function<void(const Reduction&)> on_reduction;
};

struct ShrinkResult {
    Scenario scenario;  // the smallest failing scenario found (the input when nothing helped)
    bool input_fails = false;
    ScenarioSize before;
    ScenarioSize after;
    std::vector<Reduction> reductions;
    int runs = 0;                   // candidates run, the input's own run not counted
    bool budget_exhausted = false;  // stopped by max_runs before no reduction helped
};

// Minimises `scenario` while `judge` says it fails: ddmin over the faults, the scripted scores and
// the non-default settings; halving searches over max_steps, the step scale, ranks and each
// fault's fields. Passes repeat in a fixed order until none helps or the budget runs out.
ShrinkResult shrink_scenario(const Scenario& scenario, const ShrinkJudge& judge,
                             const ShrinkOptions& options = {});

}  // namespace ckpt::sim
