// Rolling the swarm's Odds on a seed's Rng: the one spelling of "true with these odds" shared by
// the swarm's draws (swarm.cpp) and BUGGIFY's switches (buggify.cpp).
#pragma once

#include "sim/base/rng.hpp"
#include "sim/scenario/swarm_ranges.hpp"

namespace ckpt::sim {

inline bool roll(Rng& rng, Odds odds) {
    return rng.chance(odds.numerator, odds.denominator);
}

}  // namespace ckpt::sim
