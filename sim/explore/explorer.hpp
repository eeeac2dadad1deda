// Swarm exploration: many seeded scenarios, optionally under one mutant, across worker threads.
// The summary is a sum in seed order, so it and its trace hash are the same for any number of
// jobs; only wall time varies. Depends on sim/world, sim/checks and the mutant catalogue.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "policy/base/mutants.hpp"
#include "sim/checks/property.hpp"
#include "sim/world/run_stats.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {

// What the progress callback is told.
struct ExploreProgress {
    std::uint64_t done = 0;        // scenarios finished
    std::uint64_t violating = 0;   // of which violate a property
    double elapsed_seconds = 0.0;  // wall time since the start
};

struct ExploreOptions {
    std::uint64_t first_seed = 1;
    std::uint64_t seeds = 1000;                 // how many seeds (before sharding)
    std::optional<double> time_budget_seconds;  // stop drawing new seeds after this long
    // Set (from a signal handler) to stop drawing new seeds; the seeds in flight finish, so the
    // summary covers a prefix of the seed range and nothing found so far is lost.
    const std::atomic<bool>* interrupted = nullptr;
    unsigned jobs = 1;
    unsigned shard_index = 0;  // this shard takes seeds with offset % count == index
    unsigned shard_count = 1;
    std::optional<mutants::Mutant> mutant;
    bool stop_at_first_violation = false;
    // Runs this external callback in place of the C++ port in every scenario.
    std::optional<CallbackSpec> external_callback;
    // Applied to every drawn scenario before it runs (the CLI's trainer overrides).
    std::function<void(Scenario&)> adjust;
    // Called on the calling thread about every 200 ms.
    std::function<void(const ExploreProgress&)> progress;
};

struct FoundViolation {
    std::uint64_t seed = 0;
    std::uint64_t scenario_index = 0;  // 1-based position among this run's scenarios, in seed order
    Scenario scenario;
    std::vector<Violation> violations;
};

// The aggregate of many scenarios. Every field is a sum or a seed-ordered list, so the summary
// is the same for any number of jobs.
struct ExploreSummary {
    std::uint64_t scenarios = 0;
    std::uint64_t ranks = 0;  // summed, for the average
    std::uint64_t scenarios_with_fault = 0;
    RunStats totals;
    std::map<std::string, std::uint64_t> outcomes;
    std::array<std::uint64_t, kPropertyCount> violations_by_property{};
    std::vector<FoundViolation> violations;  // in seed order
    // Scenarios an external callback's harness failed (seed, what failed), in seed order.
    std::vector<std::pair<std::uint64_t, std::string>> harness_errors;
    std::string trace_hash;  // FNV-1a over every scenario's hash, in seed order
    // The sum (mod 2^64) of scenario_digest_term(seed, scenario hash) over the scenarios: unlike
    // trace_hash it adds up across shards, so `merge` can compare N shards with one run.
    std::uint64_t scenario_digest = 0;
    std::uint64_t first_seed = 0;
    std::uint64_t last_seed = 0;
    unsigned shard_index = 0;  // as in the options: seeds with offset % shard_count == shard_index
    unsigned shard_count = 1;
    bool interrupted = false;   // stopped early by ExploreOptions::interrupted
    double wall_seconds = 0.0;  // not part of any hash; for the human summary only
};

ExploreSummary explore(const ExploreOptions& options);

// Adds `from`'s counts, tallies, digest and violations to `into` (seeds and shard left alone).
void add_summary(ExploreSummary& into, const ExploreSummary& from);

// One scenario's share of ExploreSummary::scenario_digest: its hash, keyed by its seed through
// splitmix64 so that two seeds' hashes swapped change the sum.
std::uint64_t scenario_digest_term(std::uint64_t seed, std::uint64_t trace_hash);

}  // namespace ckpt::sim
