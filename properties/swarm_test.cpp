// The swarm form of every property: the first seeds of `ckptsim explore` must hold P1-P13. The
// RapidCheck properties check a hundred generated scenarios each; this adds thousands of
// swarm-drawn ones (runs up to 1400 steps and 8 ranks) for a few seconds, which is where a slip
// that needs a rare combination of features is most likely to show.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "sim/explore/explorer.hpp"

namespace ckpt::properties {
namespace {

constexpr std::uint64_t kSeeds = 5000;

TEST(Swarm, TheFirstSeedsHoldEveryProperty) {
    sim::ExploreOptions options;
    options.seeds = kSeeds;
    options.jobs = std::max(1U, std::thread::hardware_concurrency());
    const auto summary = sim::explore(options);
    EXPECT_EQ(summary.scenarios, kSeeds);
    for (const auto& found : summary.violations) {
        std::ostringstream message;
        message << "seed " << found.seed << " violates:";
        for (const auto& violation : found.violations) {
            message << "\n  " << sim::id_of(violation.property) << " ("
                    << sim::info_of(violation.property).statement << "): " << violation.message;
        }
        message << "\n  reproduce: ckptsim run --seed " << found.seed;
        ADD_FAILURE() << message.str();
    }
}

// A scenario that throws is a fault of the simulator, not a verdict: explore stops every worker
// and hands the exception to its caller (the CLI exits 2 naming it) instead of aborting.
TEST(Swarm, AScenarioThatThrowsStopsTheSwarmWithItsError) {
    for (const unsigned jobs : {1U, 2U, 3U}) {
        sim::ExploreOptions options;
        options.seeds = 40;
        options.jobs = jobs;
        options.adjust = [](sim::Scenario& scenario) {
            if (scenario.seed == 7) {
                throw std::runtime_error("the simulator failed on seed 7");
            }
        };
        EXPECT_THROW(
            {
                try {
                    (void)sim::explore(options);
                } catch (const std::runtime_error& error) {
                    EXPECT_STREQ(error.what(), "the simulator failed on seed 7");
                    throw;
                }
            },
            std::runtime_error)
            << jobs << " jobs";
    }
}

}  // namespace
}  // namespace ckpt::properties
