// The mutation run: the swarm against each catalogue mutant until a property kills it or the
// budget runs out. The verdict (killer, seed, scenario) is the same for any job count.
// Depends on sim/explore and the mutant catalogue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/base/mutants.hpp"
#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct MutantVerdict {
    mutants::Mutant mutant = mutants::Mutant::none;
    bool killed = false;
    std::optional<Property> property;  // the first property the killing scenario violated
    std::uint64_t seed = 0;
    std::uint64_t scenarios = 0;       // scenarios run until the kill (or the whole budget)
    std::optional<Scenario> scenario;  // the killing scenario
    std::string message;
};

struct MutationOptions {
    std::uint64_t budget = 4000;  // seeds per mutant before it counts as surviving
    unsigned jobs = 1;
};

// Runs the swarm against one mutant at a time, from seed 1, until a property fails.
std::vector<MutantVerdict> run_mutation_catalogue(const MutationOptions& options,
                                                  const std::vector<mutants::Mutant>& selection);

}  // namespace ckpt::sim
