// The mutation score: every catalogue mutant must be killed by the swarm within the CI budget.
// A survivor means a property is too weak; strengthen the property, never weaken the mutant.
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "policy/base/mutants.hpp"
#include "sim/explore/mutation_runner.hpp"

namespace ckpt::properties {
namespace {

constexpr std::uint64_t kBudget = 2000;  // seeds per mutant; `ckptsim mutants --budget` for more

std::string kill_table(const std::vector<sim::MutantVerdict>& verdicts) {
    std::ostringstream out;
    out << std::left << std::setw(30) << "mutant" << std::setw(8) << "killed" << std::setw(10) << "property"
        << std::setw(8) << "seed"
        << "scenarios\n";
    for (const auto& v : verdicts) {
        out << std::setw(30) << mutants::name_of(v.mutant) << std::setw(8) << (v.killed ? "yes" : "NO")
            << std::setw(10) << (v.property ? std::string(sim::id_of(*v.property)) : "-") << std::setw(8)
            << (v.killed ? std::to_string(v.seed) : "-") << v.scenarios << "\n";
    }
    return out.str();
}

TEST(MutationCatalogue, EveryMutantIsKilledWithinTheCiBudget) {
    std::vector<mutants::Mutant> all;
    for (const auto& info : mutants::catalogue()) {
        all.push_back(info.mutant);
    }
    ASSERT_GE(all.size(), 14U) << "the catalogue must hold at least 14 mutants";
    sim::MutationOptions options;
    options.budget = kBudget;
    options.first_kill_only = true;  // the kill rate is `ckptsim mutants`'s, not CI's
    options.jobs = std::max(1U, std::thread::hardware_concurrency());
    const auto verdicts = sim::run_mutation_catalogue(options, all);
    const auto table = kill_table(verdicts);
    std::cout << table;
    for (const auto& v : verdicts) {
        EXPECT_TRUE(v.killed) << mutants::name_of(v.mutant) << " survived " << kBudget << " seeds\n" << table;
    }
}

}  // namespace
}  // namespace ckpt::properties
