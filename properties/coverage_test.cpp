// "Sometimes" assertions: a property that is never exercised passes vacuously. These fail when
// the CI budget stops reaching a named crash point, a fault kind or a crash kind, for the swarm
// (what explore and the mutation runner draw) and for the RapidCheck generators (what the P1-P13
// properties draw), so a change that quietly narrows either shows up as a failure, not as a
// suite that still passes while testing less.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <rapidcheck.h>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "properties/support/scenario_generators.hpp"
#include "sim/explore/explorer.hpp"

namespace ckpt::properties {
namespace {

// Every fault kind the simulator can fire, as RunStats::faults names them.
std::vector<std::string> fault_kinds() {
    std::vector<std::string> kinds = {"crash", "corrupt_sidecar", "corrupt_checkpoint", "rank_death",
                                      "preemption"};
    for (const auto target :
         {sim::IoTarget::sidecar_write, sim::IoTarget::sidecar_fsync, sim::IoTarget::sidecar_rename,
          sim::IoTarget::directory_fsync, sim::IoTarget::link_symlink, sim::IoTarget::link_rename}) {
        kinds.push_back("io_error:" + std::string(sim::to_string(target)));
    }
    return kinds;
}

// Every way a process can die, as RunStats::crashes names them.
const std::vector<std::string> kCrashKinds = {"process_kill", "power_loss:strict", "power_loss:prefix",
                                              "power_loss:torn", "rank_kill"};

struct Coverage {
    std::array<std::uint64_t, sim::kCrashPointCount> crash_point_hits{};
    std::map<std::string, std::uint64_t> faults;
    std::map<std::string, std::uint64_t> crashes;

    void add(const sim::RunStats& stats) {
        for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
            crash_point_hits[i] += stats.crash_point_hits[i];
        }
        for (const auto& [kind, count] : stats.faults) {
            faults[kind] += count;
        }
        for (const auto& [kind, count] : stats.crashes) {
            crashes[kind] += count;
        }
    }

    void print(std::ostream& out, const std::string& budget) const {
        out << "coverage of " << budget << ":\n  crashes injected at:";
        for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
            out << " " << sim::kCrashPointNames[i] << "=" << crash_point_hits[i];
        }
        out << "\n  faults fired:";
        for (const auto& [kind, count] : faults) {
            out << " " << kind << "=" << count;
        }
        out << "\n  crashes by kind:";
        for (const auto& [kind, count] : crashes) {
            out << " " << kind << "=" << count;
        }
        out << "\n";
    }

    void expect_everything_reached(const std::string& budget) const {
        print(std::cout, budget);
        for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
            EXPECT_GT(crash_point_hits[i], 0U)
                << "no crash was injected at " << sim::kCrashPointNames[i] << " within " << budget;
        }
        for (const auto& kind : fault_kinds()) {
            const auto found = faults.find(kind);
            EXPECT_TRUE(found != faults.end() && found->second > 0)
                << "fault " << kind << " never fired within " << budget;
        }
        for (const auto& kind : kCrashKinds) {
            const auto found = crashes.find(kind);
            EXPECT_TRUE(found != crashes.end() && found->second > 0)
                << "no " << kind << " crash happened within " << budget;
        }
    }
};

// The first 1000 swarm seeds take about 2.5 s on two cores and reach everything with a wide
// margin (the rarest kind fires dozens of times).
TEST(Coverage, SwarmReachesEveryCrashPointFaultAndCrashKind) {
    sim::ExploreOptions options;
    options.seeds = 1000;
    options.jobs = std::max(1U, std::thread::hardware_concurrency());
    const auto summary = sim::explore(options);
    Coverage coverage;
    coverage.add(summary.totals);
    coverage.expect_everything_reached("the first 1000 swarm seeds");
}

// BUGGIFY's purpose, measured by what the runs did (RunStats::rare_paths), not by the switches:
// every rare path is reached in at least 5% of the default swarm's scenarios. 2000 seeds take
// about 3 s on two cores; the shares are pasted in docs/cli.md (the rarest sits a little above 5%).
TEST(Coverage, SwarmReachesEveryRarePathInFivePercentOfScenarios) {
    sim::ExploreOptions options;
    options.seeds = 2000;
    options.jobs = std::max(1U, std::thread::hardware_concurrency());
    const auto summary = sim::explore(options);
    std::cout << "rare paths over the first 2000 swarm seeds:";
    for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
        std::cout << " " << sim::kRarePathNames[i] << "=" << summary.totals.rare_paths[i];
    }
    std::cout << "\n";
    for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
        EXPECT_GE(summary.totals.rare_paths[i] * 20, summary.scenarios)
            << sim::kRarePathNames[i] << " was reached in " << summary.totals.rare_paths[i] << " of "
            << summary.scenarios << " scenarios, under 5%";
    }
}

// The generators' own reach, sampled the way a property run draws: sizes 0 to 99 in turn, from a
// fixed RapidCheck seed so the test is deterministic. 1000 cases is ten properties' worth.
TEST(Coverage, GeneratedScenariosReachEveryCrashPointFaultAndCrashKind) {
    const auto gen = gen_scenario();
    rc::Random random(20240601);
    Coverage coverage;
    for (int i = 0; i < 1000; ++i) {
        const auto scenario = gen(random.split(), i % 100).value();
        coverage.add(sim::run_scenario(scenario).stats);
    }
    coverage.expect_everything_reached("1000 generated scenarios");
}

}  // namespace
}  // namespace ckpt::properties
