// Greedy shrinking of a scenario that did not come from a generator (a swarm seed's), toward
// the generators' targets. Deterministic, and the result still fails; test-only, depends on
// sim/scenario.
#pragma once

#include <functional>

#include "sim/scenario/scenario.hpp"

namespace ckpt::properties {

// Greedy shrinking of a scenario that did not come from a generator (a swarm seed's), toward the
// same targets as the generators: fewer faults, fewer steps, one rank, simpler scores, defaults.
// Tries one simplification at a time and keeps it while `still_fails` holds, until none helps
// (or `max_runs` candidates were tried). The result still fails.
sim::Scenario minimise(sim::Scenario scenario, const std::function<bool(const sim::Scenario&)>& still_fails,
                       int max_runs = 5000);

}  // namespace ckpt::properties
