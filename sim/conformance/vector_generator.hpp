// The conformance vectors `ckptsim vectors` writes: a fixed coverage set (every reason, tie
// policy, the warm-up and its boundary, baselines, loads, invalid inputs and stops under
// several configurations), then random sequences. Deterministic from the seed (sim/base/rng).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/rng.hpp"
#include "sim/conformance/conformance_vector.hpp"

namespace ckpt::sim::conformance {

// The fixed coverage set; the same for every seed.
std::vector<ConformanceVector> coverage_vectors();

// One random configuration and sequence of up to 24 inputs, named "<prefix>/<index>".
ConformanceVector random_vector(Rng& rng, const std::string& prefix, std::size_t index);

// The coverage set followed by `random_count` random vectors drawn from `seed`.
std::vector<ConformanceVector> generate_vectors(std::size_t random_count, std::uint64_t seed);

}  // namespace ckpt::sim::conformance
