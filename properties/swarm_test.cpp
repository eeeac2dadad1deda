// The swarm form of every property: the first seeds of `ckptsim explore` must hold P1-P13. The
// RapidCheck properties check a hundred generated scenarios each; this adds thousands of
// swarm-drawn ones (runs up to 1400 steps and 8 ranks) for a few seconds, which is where a slip
// that needs a rare combination of features is most likely to show.
#include <algorithm>
#include <sstream>
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

}  // namespace
}  // namespace ckpt::properties
