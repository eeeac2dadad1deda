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
    // With the whole budget run (MutationOptions::first_kill_only false): how many scenarios of
    // `budget_run` killed it. A mutant killed by under 1% is weak: the swarm barely reaches it.
    std::uint64_t killing_scenarios = 0;
    std::uint64_t budget_run = 0;

    double kill_rate() const noexcept {
        return budget_run == 0 ? 0.0
                               : static_cast<double>(killing_scenarios) / static_cast<double>(budget_run);
    }
    bool weak() const noexcept { return budget_run > 0 && kill_rate() < 0.01; }
};

struct MutationOptions {
    std::uint64_t budget = 4000;  // seeds per mutant before it counts as surviving
    unsigned jobs = 1;
    // Stop at the first kill (fast, no kill rate) instead of running the whole budget.
    bool first_kill_only = false;
};

// Runs the swarm against one mutant at a time, from seed 1: until a property fails, or over the
// whole budget to measure the kill rate.
std::vector<MutantVerdict> run_mutation_catalogue(const MutationOptions& options,
                                                  const std::vector<mutants::Mutant>& selection);

}  // namespace ckpt::sim
