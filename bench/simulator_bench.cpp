// Simulator throughput: simulated trainer steps per second on a long scenario, and default-swarm
// scenarios per second, the rate at which `ckptsim explore` covers seeds.
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include "bench/scenario_tally.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/swarm.hpp"
#include "sim/world/simulation.hpp"

namespace {

using ckpt::bench::ScenarioTally;
using ckpt::sim::Scenario;

constexpr std::int64_t kLongRun = 20'000;

// A long run whose cost is the step loop: the only save event is the final one at max_steps,
// so one evaluation and one checkpoint are spread over kLongRun steps.
Scenario long_run(int ranks, std::uint64_t seed) {
    Scenario s;
    s.seed = seed;
    s.job.ranks = ranks;
    s.trainer.max_steps = kLongRun;
    s.trainer.steps_per_epoch = 1'000;
    s.trainer.save_strategy = ckpt::sim::SaveStrategy::steps;
    s.trainer.save_steps = kLongRun * 100;
    return s;
}

// The same run under the default fault mix: the faults of the first swarm seed that draws this
// many ranks and whose faults fire on the long run. Step-placed faults are stretched from the
// drawn run's length to kLongRun so they land where they would in proportion. Without save
// events a crash resumes from scratch, so the steps retrained after it count as work done.
Scenario long_run_with_faults(int ranks) {
    for (std::uint64_t seed = 1; seed < 10'000; ++seed) {
        const Scenario drawn = ckpt::sim::draw_scenario(seed);
        if (drawn.job.ranks != ranks) {
            continue;
        }
        Scenario s = long_run(ranks, seed);
        s.faults = drawn.faults;
        for (auto& fault : s.faults) {
            fault.at_step = fault.at_step * kLongRun / drawn.trainer.max_steps;
        }
        if (ckpt::sim::run_scenario(s).stats.faults_fired() > 0) {
            return s;
        }
    }
    return long_run(ranks, 1);  // unreachable in practice; the benchmark reports faults=0 then
}

void BM_SimSteps(benchmark::State& state) {
    const int ranks = static_cast<int>(state.range(0));
    const bool faults = state.range(1) != 0;
    const Scenario scenario = faults ? long_run_with_faults(ranks) : long_run(ranks, 1);
    ScenarioTally tally;
    for (auto _ : state) {
        const auto result = ckpt::sim::run_scenario(scenario);
        tally.add(result);
        benchmark::DoNotOptimize(result.trace_hash_value);
    }
    // Steps are rank 0's optimizer steps: one per trainer step, however many ranks share it.
    state.SetItemsProcessed(static_cast<std::int64_t>(tally.steps));
    state.counters["steps_per_s"] = benchmark::Counter(tally.steps, benchmark::Counter::kIsRate);
    tally.report(state);
    state.SetLabel("seed=" + std::to_string(scenario.seed));
}
BENCHMARK(BM_SimSteps)
    ->ArgsProduct({{1, 2, 8}, {0, 1}})
    ->ArgNames({"ranks", "faults"})
    ->Unit(benchmark::kMillisecond);

void BM_SimSwarm(benchmark::State& state) {
    // Seeds 1, 2, 3, ... as `ckptsim explore` draws them. Every run starts again at seed 1, so
    // repetitions and commits time the same scenarios (as many as the time budget reaches).
    std::uint64_t seed = 1;
    ScenarioTally tally;
    for (auto _ : state) {
        const auto result = ckpt::sim::run_scenario(ckpt::sim::draw_scenario(seed++));
        tally.add(result);
        benchmark::DoNotOptimize(result.trace_hash_value);
    }
    state.SetItemsProcessed(state.iterations());
    tally.report(state);
}
BENCHMARK(BM_SimSwarm)->Unit(benchmark::kMicrosecond);

}  // namespace
