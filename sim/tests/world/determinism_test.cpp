// P8 from the outside: the same seed gives the same trace, byte for byte, in one process, in
// separate processes, and whatever the number of explore jobs or shards. The trace hash is
// recomputed here with a separate FNV-1a, so a change in how the library hashes cannot pass
// unnoticed.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/swarm.hpp"
#include "sim/tests/support/subprocess.hpp"
#include "sim/tests/support/text_lines.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {
namespace {

using ckpt::testing::reference_fnv1a64;
using nlohmann::json;

// FNV-1a 64 as the reference defines it (offset basis 14695981039346656037, prime 2^40 + 0x1b3).
std::string hex16(std::uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

// Runs the ckptsim binary in a fresh directory, which also receives anything it writes by default.
class DeterminismAcrossProcesses : public ckpt::testing::CkptsimProcessTest {
  protected:
    DeterminismAcrossProcesses() : CkptsimProcessTest("ckptsim-determinism") {}

    json ckptsim_json(const std::vector<std::string>& args) {
        const auto done = ckptsim(args);
        EXPECT_EQ(done.exit_code, 0) << done.err;
        return json::parse(done.out);
    }

    std::string out_dir() const { return path("failures"); }
};

TEST(TraceDeterminism, ReferenceFnvMatchesThePublishedVectors) {
    // Guards the test's own hash: draft-eastlake-fnv, FNV-1a 64.
    EXPECT_EQ(reference_fnv1a64(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(reference_fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(reference_fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(TraceDeterminism, SameScenarioTwiceGivesTheSameTrace) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto scenario = draw_scenario(seed);
        const auto first = run_scenario(scenario, RunOptions{.keep_trace = true});
        const auto second = run_scenario(scenario, RunOptions{.keep_trace = true});
        ASSERT_FALSE(first.trace.empty()) << "seed " << seed;
        EXPECT_EQ(first.trace_hash, second.trace_hash) << "seed " << seed;
        EXPECT_EQ(first.trace, second.trace) << "seed " << seed;
    }
}

TEST(TraceDeterminism, TraceHashIsFnv1aOfTheLinesEachEndedByNewline) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto result = run_scenario(draw_scenario(seed), RunOptions{.keep_trace = true});
        std::uint64_t hash = 14695981039346656037ULL;
        for (const auto& line : result.trace) {
            ASSERT_EQ(line.find('\n'), std::string::npos) << "a trace line must not span lines";
            hash = reference_fnv1a64(line, hash);
            hash = reference_fnv1a64("\n", hash);
        }
        EXPECT_EQ(result.trace_hash_value, hash) << "seed " << seed;
        EXPECT_EQ(result.trace_hash, hex16(hash)) << "seed " << seed;
    }
}

TEST(TraceDeterminism, KeepingTheTraceDoesNotChangeTheHash) {
    // Explore drops the lines and replay --trace keeps them: both must describe the same run.
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto scenario = draw_scenario(seed);
        const auto kept = run_scenario(scenario, RunOptions{.keep_trace = true});
        const auto dropped = run_scenario(scenario, RunOptions{.keep_trace = false});
        EXPECT_TRUE(dropped.trace.empty());
        EXPECT_EQ(dropped.trace_hash, kept.trace_hash) << "seed " << seed;
    }
}

TEST(TraceDeterminism, DifferentSeedsGiveDifferentHashes) {
    // Otherwise the equalities above could hold for a hash that ignores the run.
    EXPECT_NE(run_scenario(draw_scenario(1)).trace_hash, run_scenario(draw_scenario(2)).trace_hash);
}

TEST_F(DeterminismAcrossProcesses, RunInSeparateProcessesPrintsTheSameHash) {
    for (const std::string seed : {"1", "17", "123456789"}) {
        const auto first = ckptsim_json({"run", "--seed", seed, "--json", "--out", out_dir()});
        const auto second = ckptsim_json({"run", "--seed", seed, "--json", "--out", out_dir()});
        EXPECT_EQ(first.at("trace_hash"), second.at("trace_hash")) << "seed " << seed;
        // And the same as this process computes for the drawn scenario.
        const auto here = run_scenario(draw_scenario(std::stoull(seed)));
        EXPECT_EQ(first.at("trace_hash"), here.trace_hash) << "seed " << seed;
    }
}

TEST_F(DeterminismAcrossProcesses, ExploreGivesTheSameResultForAnyNumberOfJobs) {
    const auto one = ckptsim_json({"explore", "--seeds", "200", "--jobs", "1", "--json", "--out", out_dir()});
    const auto two = ckptsim_json({"explore", "--seeds", "200", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(one.at("scenarios"), 200);
    EXPECT_EQ(two.at("scenarios"), one.at("scenarios"));
    EXPECT_EQ(two.at("trace_hash"), one.at("trace_hash"));
    EXPECT_EQ(two.at("coverage"), one.at("coverage"));
    EXPECT_EQ(two.at("violations"), one.at("violations"));
}

TEST_F(DeterminismAcrossProcesses, ExploreHashCombinesTheScenarioHashesInSeedOrder) {
    // Each scenario's 64-bit hash, as 8 little-endian bytes (trace_hash.hpp), fed to FNV-1a in
    // seed order, seeds 1..30 (explore's first seed is 1).
    std::uint64_t combined = 14695981039346656037ULL;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const auto value = run_scenario(draw_scenario(seed)).trace_hash_value;
        for (int i = 0; i < 8; ++i) {
            const char byte = static_cast<char>(static_cast<unsigned char>(value >> (8 * i)));
            combined = reference_fnv1a64(std::string_view(&byte, 1), combined);
        }
    }
    const auto explored =
        ckptsim_json({"explore", "--seeds", "30", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(explored.at("trace_hash"), hex16(combined));
}

TEST_F(DeterminismAcrossProcesses, ShardsPartitionTheSeeds) {
    const auto whole =
        ckptsim_json({"explore", "--seeds", "200", "--jobs", "2", "--json", "--out", out_dir()});
    const auto first = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "1/2", "--jobs", "2", "--json", "--out", out_dir()});
    const auto second = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "2/2", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(whole.at("scenarios"), 200);
    EXPECT_GT(first.at("scenarios").get<std::uint64_t>(), 0U);
    EXPECT_GT(second.at("scenarios").get<std::uint64_t>(), 0U);
    EXPECT_EQ(first.at("scenarios").get<std::uint64_t>() + second.at("scenarios").get<std::uint64_t>(),
              whole.at("scenarios").get<std::uint64_t>());
    // Disjoint and covering: the shards' step totals add up to the whole run's.
    EXPECT_EQ(first.at("steps").get<std::uint64_t>() + second.at("steps").get<std::uint64_t>(),
              whole.at("steps").get<std::uint64_t>());
    // A shard is itself deterministic.
    const auto again = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "2/2", "--jobs", "1", "--json", "--out", out_dir()});
    EXPECT_EQ(again.at("trace_hash"), second.at("trace_hash"));
}

}  // namespace
}  // namespace ckpt::sim
