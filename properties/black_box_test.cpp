// Black-box judging (docs/properties.md): every observer call deleted from the port's evaluation
// round, the swarm still holds on the real code and still kills every catalogue mutant. The
// hooks feed the trace, the fault plan's aim and one crash point; if a verdict depended on them,
// a mutant would survive here or the real code would be flagged.
#include <sstream>

#include <gtest/gtest.h>

#include "policy/base/mutants.hpp"
#include "sim/explore/explorer.hpp"
#include "sim/explore/mutation_runner.hpp"

namespace ckpt::properties {
namespace {

// One worker: the deletion switch is thread-local, like the mutant switch, and the explorer
// simulates on the calling thread when it has one job.
constexpr unsigned kOneJob = 1;

TEST(BlackBox, TheRealCodeHoldsWithEveryObserverCallDeleted) {
    const mutants::ObserverCallsDeletedScope deleted;
    sim::ExploreOptions options;
    options.seeds = 1000;
    options.jobs = kOneJob;
    const auto summary = sim::explore(options);
    // The only crash point the round's hooks raise: none passed, so the hooks really were gone.
    EXPECT_EQ(summary.totals.crash_point_passes[static_cast<std::size_t>(sim::CrashPoint::after_evaluation)],
              0U);
    EXPECT_GT(summary.totals.evaluations, 1000U);
    for (const auto& found : summary.violations) {
        std::ostringstream message;
        message << "seed " << found.seed << " violates with the observer calls deleted:";
        for (const auto& violation : found.violations) {
            message << "\n  " << sim::id_of(violation.property) << ": " << violation.message;
        }
        ADD_FAILURE() << message.str();
    }
}

TEST(BlackBox, EveryMutantIsKilledWithEveryObserverCallDeleted) {
    const mutants::ObserverCallsDeletedScope deleted;
    std::vector<mutants::Mutant> all;
    for (const auto& info : mutants::catalogue()) {
        all.push_back(info.mutant);
    }
    sim::MutationOptions options;
    options.budget = 2000;
    options.first_kill_only = true;
    options.jobs = kOneJob;
    for (const auto& verdict : sim::run_mutation_catalogue(options, all)) {
        EXPECT_TRUE(verdict.killed) << mutants::name_of(verdict.mutant) << " survived " << options.budget
                                    << " seeds with the observer calls deleted";
    }
}

}  // namespace
}  // namespace ckpt::properties
