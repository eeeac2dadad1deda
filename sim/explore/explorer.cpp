// The worker pool: seeds are claimed in order, each worker arms the mutant on its own thread, and
// merged violations are sorted by seed; finished seeds form a prefix and the hash covers exactly it.
#include "sim/explore/explorer.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "sim/base/assert.hpp"
#include "sim/base/first_failure.hpp"
#include "sim/base/rng.hpp"
#include "sim/explore/in_order_hash.hpp"
#include "sim/scenario/swarm.hpp"

namespace ckpt::sim {
namespace {

void add_stats(RunStats& into, const RunStats& from) {
    into.steps += from.steps;
    into.evaluations += from.evaluations;
    into.checkpoints += from.checkpoints;
    into.incarnations += from.incarnations;
    into.resumes += from.resumes;
    into.hangs += from.hangs;
    into.watchdog_restarts += from.watchdog_restarts;
    into.stopped_by_policy += from.stopped_by_policy;
    into.refusals_fixed += from.refusals_fixed;
    into.trained_to_end += from.trained_to_end;
    into.virtual_ms += from.virtual_ms;
    into.save_window_dangling += from.save_window_dangling;
    for (std::size_t i = 0; i < kCrashPointCount; ++i) {
        into.crash_point_passes[i] += from.crash_point_passes[i];
        into.crash_point_hits[i] += from.crash_point_hits[i];
    }
    for (std::size_t i = 0; i < kRarePathCount; ++i) {
        into.rare_paths[i] += from.rare_paths[i];
    }
    for (const auto& [kind, count] : from.crashes) {
        into.crashes[kind] += count;
    }
    for (const auto& [kind, count] : from.faults) {
        into.faults[kind] += count;
    }
    for (const auto& [remedy, count] : from.relaunches) {
        into.relaunches[remedy] += count;
    }
}

}  // namespace

void add_summary(ExploreSummary& into, const ExploreSummary& from) {
    into.scenarios += from.scenarios;
    into.ranks += from.ranks;
    into.scenarios_with_fault += from.scenarios_with_fault;
    add_stats(into.totals, from.totals);
    for (const auto& [outcome, count] : from.outcomes) {
        into.outcomes[outcome] += count;
    }
    for (std::size_t i = 0; i < kPropertyCount; ++i) {
        into.violations_by_property[i] += from.violations_by_property[i];
    }
    into.violations.insert(into.violations.end(), from.violations.begin(), from.violations.end());
    into.harness_errors.insert(into.harness_errors.end(), from.harness_errors.begin(),
                               from.harness_errors.end());
    into.scenario_digest += from.scenario_digest;
}

std::uint64_t scenario_digest_term(std::uint64_t seed, std::uint64_t trace_hash) {
    return mix64(trace_hash ^ mix64(seed));
}

ExploreSummary explore(const ExploreOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    const std::uint64_t shards = std::max(1U, options.shard_count);
    const std::uint64_t items =
        options.seeds > options.shard_index ? (options.seeds - options.shard_index + shards - 1) / shards : 0;
    const auto seed_of = [&](std::uint64_t item) {
        return options.first_seed + options.shard_index + item * shards;
    };

    InOrderHash hashes;
    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> violating{0};
    std::atomic<std::uint64_t> first_violation{UINT64_MAX};
    std::mutex merge;
    ExploreSummary summary;

    const auto elapsed_seconds = [&]() {
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        return elapsed.count();
    };
    // A scenario that throws (a fault of the simulator itself, never a verdict) stops every
    // worker; the first such exception is rethrown once all have joined.
    FirstFailure failure;
    const auto should_stop = [&]() {
        return failure.happened() ||
               (options.time_budget_seconds && elapsed_seconds() >= *options.time_budget_seconds) ||
               (options.interrupted != nullptr && options.interrupted->load()) ||
               (options.stop_at_first_violation && first_violation.load() != UINT64_MAX);
    };

    const auto worker = [&]() {
        std::optional<mutants::MutantScope> scope;
        if (options.mutant) {
            scope.emplace(*options.mutant);
        }
        ExploreSummary local;
        for (;;) {
            if (should_stop()) {
                break;
            }
            const auto item = next.fetch_add(1);
            if (item >= items) {
                break;
            }
            auto scenario = draw_scenario(seed_of(item));
            if (options.adjust) {
                options.adjust(scenario);
            }
            RunOptions run_options;
            run_options.external_callback = options.external_callback ? &*options.external_callback : nullptr;
            const auto result = run_scenario(scenario, run_options);
            hashes.add(item, result.trace_hash_value);
            local.scenario_digest += scenario_digest_term(scenario.seed, result.trace_hash_value);
            local.scenarios += 1;
            local.ranks += static_cast<std::uint64_t>(scenario.job.ranks);
            local.scenarios_with_fault += result.stats.faults_fired() > 0 ? 1 : 0;
            add_stats(local.totals, result.stats);
            local.outcomes[std::string(to_string(result.outcome))] += 1;
            if (result.outcome == Outcome::harness_error) {
                local.harness_errors.emplace_back(scenario.seed, result.outcome_detail);
            }
            if (!result.ok()) {
                for (const auto& violation : result.violations) {
                    local.violations_by_property[static_cast<std::size_t>(violation.property)] += 1;
                }
                local.violations.push_back({scenario.seed, item + 1, scenario, result.violations});
                violating.fetch_add(1);
                auto seen = first_violation.load();
                while (item < seen && !first_violation.compare_exchange_weak(seen, item)) {
                }
            }
            done.fetch_add(1);
        }
        const std::lock_guard lock(merge);
        add_summary(summary, local);
    };

    // With a progress callback the calling thread only reports; otherwise it simulates too.
    const unsigned jobs = std::max(1U, options.jobs);
    std::atomic<unsigned> finished_workers{0};
    const auto counted_worker = [&]() {
        failure.guard(worker);
        finished_workers.fetch_add(1);
    };
    std::vector<std::thread> threads;
    const unsigned spawned = options.progress ? jobs : jobs - 1;
    for (unsigned j = 0; j < spawned; ++j) {
        threads.emplace_back(counted_worker);
    }
    if (options.progress) {
        while (finished_workers.load() < spawned) {
            options.progress({done.load(), violating.load(), elapsed_seconds()});
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        options.progress({done.load(), violating.load(), elapsed_seconds()});
    } else {
        failure.guard(worker);
    }
    for (auto& t : threads) {
        t.join();
    }
    failure.rethrow_if_any();

    std::sort(summary.violations.begin(), summary.violations.end(),
              [](const auto& a, const auto& b) { return a.seed < b.seed; });
    std::sort(summary.harness_errors.begin(), summary.harness_errors.end());
    // Seeds are claimed in order and every claimed seed finishes, so the hash covers them all.
    CKPT_ASSERT(hashes.folded() == summary.scenarios);
    summary.trace_hash = hashes.hex();
    summary.interrupted = options.interrupted != nullptr && options.interrupted->load();
    summary.first_seed = seed_of(0);
    summary.shard_index = options.shard_index;
    summary.shard_count = static_cast<unsigned>(shards);
    summary.last_seed = summary.scenarios > 0 ? seed_of(summary.scenarios - 1) : summary.first_seed;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
    summary.wall_seconds = elapsed.count();
    return summary;
}

}  // namespace ckpt::sim
