#pragma once

#include <benchmark/benchmark.h>

#include "sim/world/simulation.hpp"

namespace ckpt::bench {

// Per-scenario averages that say what a simulator figure stood for (a faster swarm that runs
// fewer steps per scenario is not faster), and a violation total that must stay zero: a run that
// trips an oracle is timing a bug, not the simulator.
struct ScenarioTally {
    double steps = 0;
    double evaluations = 0;
    double ranks = 0;
    double faults = 0;
    double incarnations = 0;
    double violations = 0;

    void add(const sim::ScenarioResult& result) {
        steps += static_cast<double>(result.stats.steps);
        evaluations += static_cast<double>(result.stats.evaluations);
        ranks += result.scenario.job.ranks;
        faults += static_cast<double>(result.stats.faults_fired());
        incarnations += static_cast<double>(result.stats.incarnations);
        violations += static_cast<double>(result.violations.size());
    }

    void report(benchmark::State& state) const {
        using benchmark::Counter;
        state.counters["steps"] = Counter(steps, Counter::kAvgIterations);
        state.counters["evaluations"] = Counter(evaluations, Counter::kAvgIterations);
        state.counters["ranks"] = Counter(ranks, Counter::kAvgIterations);
        state.counters["faults"] = Counter(faults, Counter::kAvgIterations);
        state.counters["incarnations"] = Counter(incarnations, Counter::kAvgIterations);
        state.counters["violations"] = Counter(violations);
    }
};

}  // namespace ckpt::bench
