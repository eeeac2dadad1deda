// RapidCheck generators of whole scenarios for the properties: valid by construction, shrinkable
// field by field, drawn over the swarm's ranges and odds (sim/scenario/swarm_ranges.hpp).
// Depends on the scenario vocabulary and RapidCheck; never on a simulation run.
#pragma once

#include <cstdint>
#include <rapidcheck.h>

#include "sim/scenario/scenario.hpp"

namespace ckpt::properties {

// What a property needs of its scenarios beyond the swarm's mix. A property that cannot fail
// on some scenarios (P7 with one rank) asks for the ones where it can, so no case is wasted.
struct ScenarioFocus {
    int min_ranks = 1;
    int min_early_stopping_callbacks = 0;
    // Keeps one case near a millisecond, so the default 100 cases per property stay cheap.
    std::int64_t max_steps_cap = 800;
    // Every RapidCheck property of a run starts from the same seed, so with one generator all
    // twelve would check the same hundred scenarios. Each property draws from its own stream
    // (its number), which makes them test twelve different hundreds for the same cost.
    std::uint64_t stream = 0;
};

// Scenarios built field by field, not from a seed, so RapidCheck can shrink each field on its
// own: toward fewer steps, one rank, no faults, a short script or a random walk, no gate or
// regular steps, and the Scenario defaults. Every field the swarm draws is drawn here over the
// same ranges and odds, read from the one table both use (sim/scenario/swarm_ranges.hpp); the length of a run
// and the number of faults grow with RapidCheck's size. Every scenario passes Scenario::validate().
rc::Gen<sim::Scenario> gen_scenario(ScenarioFocus focus = {});

rc::Gen<sim::ScoreModelConfig> gen_score_model();

}  // namespace ckpt::properties

namespace ckpt::sim {

// RapidCheck prints the values a failing case drew through showValue, found by argument-dependent
// lookup, so it has to live in the scenario's own namespace. The JSON is what a scenario file
// holds, so a printed case can be pasted into `ckptsim replay`.
inline void showValue(const Scenario& scenario, std::ostream& os) {
    os << scenario.to_json().dump();
}

}  // namespace ckpt::sim
