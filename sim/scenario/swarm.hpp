// The swarm: one seed draws a whole scenario, its features and its fault mix (swarm testing), over
// the ranges of swarm_ranges.hpp. A seed always draws the same scenario: the exploration's trace
// hash depends on every draw and its order. Depends on the scenario and sim/base's Rng.
#pragma once

#include <cstdint>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

Scenario draw_scenario(std::uint64_t seed);

}  // namespace ckpt::sim
