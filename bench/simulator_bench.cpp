// Simulator throughput: simulated trainer steps per second on a long scenario, evaluations per
// second on runs of 1,000 and 10,000 evaluations (linear cost), and default-swarm scenarios per
// second, the rate at which `ckptsim explore` covers seeds.
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

// Runs `scenario` once per iteration and tallies what the runs did.
ScenarioTally time_runs(benchmark::State& state, const Scenario& scenario) {
    ScenarioTally tally;
    for (auto _ : state) {
        const auto result = ckpt::sim::run_scenario(scenario);
        tally.add(result);
        benchmark::DoNotOptimize(result.trace_hash_value);
    }
    return tally;
}

void BM_SimSteps(benchmark::State& state) {
    const int ranks = static_cast<int>(state.range(0));
    const bool faults = state.range(1) != 0;
    const Scenario scenario = faults ? long_run_with_faults(ranks) : long_run(ranks, 1);
    const ScenarioTally tally = time_runs(state, scenario);
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

// Issue 14: the cost of a run must be linear in its length. One rank, no faults, a save and
// an evaluation every 10 steps, and a patience no random walk exhausts, so the run evaluates
// `evaluations` times; items per second are evaluations per second.
Scenario long_evaluating_run(std::int64_t evaluations) {
    Scenario s;
    s.seed = 1;
    s.job.ranks = 1;
    s.trainer.max_steps = evaluations * 10;
    s.trainer.steps_per_epoch = 1'000;
    s.trainer.save_strategy = ckpt::sim::SaveStrategy::steps;
    s.trainer.save_steps = 10;
    s.callbacks.policy.patience = 1'000'000;
    return s;
}

void BM_SimLongRun(benchmark::State& state) {
    const Scenario scenario = long_evaluating_run(state.range(0));
    const ScenarioTally tally = time_runs(state, scenario);
    state.SetItemsProcessed(static_cast<std::int64_t>(tally.evaluations));
    tally.report(state);
}
BENCHMARK(BM_SimLongRun)
    ->ArgName("evaluations")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

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
