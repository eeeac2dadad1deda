// The mutation run's counterexamples, shrunk: each killed mutant's killing scenario minimised
// while its killing property stays violated under it. Shrinks are independent, so they run on
// worker threads and give the same scenarios for any job count. Depends on the shrinker.
#pragma once

#include <optional>
#include <vector>

#include "sim/explore/mutation_runner.hpp"
#include "sim/explore/scenario_shrinker.hpp"

namespace ckpt::sim {

// One entry per verdict, empty for a surviving mutant; `max_runs` bounds each shrink.
std::vector<std::optional<ShrinkResult>> shrink_kills(const std::vector<MutantVerdict>& verdicts,
                                                      unsigned jobs, int max_runs);

}  // namespace ckpt::sim
