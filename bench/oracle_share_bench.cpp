// The fixed workload behind the oracle-overhead figure.
//
// The simulator has no switch that turns the property oracles off (run_scenario always checks
// them), so the share of scenario time they take cannot be had as the difference of two timed
// runs. Instead this benchmark runs one fixed block of default-swarm seeds, exactly the same
// scenarios on every run, and bench/oracle_share.py profiles it under callgrind: the share is
// the inclusive cost of every call into ckpt::sim::Oracles from outside it, over the inclusive
// cost of run_scenario (its --perf mode gives a sampled time share as a cross-check).
//
// Timed normally it is also a swarm figure that, unlike BM_SimSwarm (whose seed count follows
// the time budget), compares commits scenario for scenario.
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include "bench/scenario_tally.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/swarm.hpp"
#include "sim/world/simulation.hpp"

namespace {

// Enough seeds for the swarm's mix (ranks, fault kinds, tie policies) to average out, few enough
// that a callgrind run of the block takes about a minute.
constexpr std::uint64_t kSeeds = 64;

void BM_SimSwarmOracleShare(benchmark::State& state) {
    std::uint64_t seed = 1;
    ckpt::bench::ScenarioTally tally;
    for (auto _ : state) {
        const auto result = ckpt::sim::run_scenario(ckpt::sim::draw_scenario(seed));
        seed = seed == kSeeds ? 1 : seed + 1;
        tally.add(result);
        benchmark::DoNotOptimize(result.trace_hash_value);
    }
    state.SetItemsProcessed(state.iterations());
    tally.report(state);
    state.SetLabel("seeds=1-" + std::to_string(kSeeds) + "; share: python3 bench/oracle_share.py");
}
// One pass over the block per run: the profile and the timing cover the same scenarios.
BENCHMARK(BM_SimSwarmOracleShare)->Iterations(kSeeds)->Unit(benchmark::kMicrosecond);

}  // namespace
