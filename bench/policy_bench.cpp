// CheckpointEvaluationPolicy::observe on each of its decision paths, plus the two calls that sit
// next to it on a trainer's evaluation: establish_external_baseline and applying a decision.
//
// Every benchmark checks the decision reason on every iteration, so a change to the policy that
// routes a score down a different path fails the benchmark (SkipWithError) instead of silently
// timing the wrong branch. The check is one predictable compare; it is part of every figure.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include <benchmark/benchmark.h>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/trigger/apply_decision.hpp"

namespace {

using ckpt::CheckpointEvaluationDecision;
using ckpt::CheckpointEvaluationPolicy;
using ckpt::CheckpointEvaluationState;
using ckpt::DecisionReason;
using ckpt::PolicySettings;
using ckpt::TiePolicy;

// Large enough that no benchmark run can exhaust it: the lower and counted-tie paths keep
// lengthening the streak, and must stay on their path for every iteration.
constexpr std::int64_t kEndlessPatience = std::numeric_limits<std::int64_t>::max();
constexpr double kBest = 0.75;
constexpr std::int64_t kBestStep = 50;
constexpr std::int64_t kStep = 100;

PolicySettings settings(std::int64_t patience, TiePolicy tie = TiePolicy::reset, std::int64_t start = 0) {
    return PolicySettings{.patience = patience, .tie_policy = tie, .patience_start_step = start};
}

// A mid-run state: a best to compare with, a few evaluations behind it.
CheckpointEvaluationState with_best(std::int64_t streak = 0) {
    return CheckpointEvaluationState{.best_score = kBest,
                                     .best_step = kBestStep,
                                     .lower_score_streak = streak,
                                     .evaluation_count = 4,
                                     .stop_requested = false,
                                     .best_is_external = false};
}

bool expect(benchmark::State& state, const CheckpointEvaluationDecision& decision, DecisionReason reason) {
    if (decision.reason == reason) [[likely]] {
        return true;
    }
    state.SkipWithError("observe took a different path than the benchmark names");
    return false;
}

// Paths that leave the policy where it can take the same path again (lower with endless
// patience, ties that do not stop, warm-up) observe the same score on one policy, so the figure
// is observe alone.
void observe_repeatable(benchmark::State& state, CheckpointEvaluationPolicy policy, double score,
                        DecisionReason reason) {
    for (auto _ : state) {
        auto decision = policy.observe(score, kStep);
        benchmark::DoNotOptimize(decision);
        if (!expect(state, decision, reason)) {
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
}

// Paths that change what the next observe would do (the first score, a stop) need a fresh
// policy for every call. A batch of copies of the prepared policy is laid down untimed, then the
// batch's observes alone are timed (UseManualTime with the monotonic clock, read once per batch
// of kFreshBatch calls: a thread CPU clock is a system call, dearer than the calls it would time);
// each call works on its own policy, as a trainer's one call per evaluation does. This is wall
// time, so quote it from an idle machine. Items per second and seconds_per_observe are per call.
constexpr std::size_t kFreshBatch = 256;

void observe_fresh(benchmark::State& state, const CheckpointEvaluationPolicy& prepared, double score,
                   DecisionReason reason) {
    std::vector<CheckpointEvaluationPolicy> batch(kFreshBatch, prepared);
    std::vector<CheckpointEvaluationDecision> decisions(kFreshBatch);
    for (auto _ : state) {
        std::fill(batch.begin(), batch.end(), prepared);
        benchmark::ClobberMemory();
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < kFreshBatch; ++i) {
            decisions[i] = batch[i].observe(score, kStep);
        }
        benchmark::ClobberMemory();
        state.SetIterationTime(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        for (const auto& decision : decisions) {
            if (!expect(state, decision, reason)) {
                return;
            }
        }
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kFreshBatch));
    state.counters["seconds_per_observe"] =
        benchmark::Counter(static_cast<double>(state.iterations() * kFreshBatch),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ObserveInitial(benchmark::State& state) {
    observe_fresh(state, CheckpointEvaluationPolicy(settings(3)), 0.5, DecisionReason::initial);
}
BENCHMARK(BM_ObserveInitial)->UseManualTime();

void BM_ObserveImproved(benchmark::State& state) {
    // A strictly rising score improves every time without any reset: the best follows it.
    CheckpointEvaluationPolicy policy(settings(3), with_best());
    double score = kBest;
    for (auto _ : state) {
        score += 1.0;
        auto decision = policy.observe(score, kStep);
        benchmark::DoNotOptimize(decision);
        if (!expect(state, decision, DecisionReason::improved)) {
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ObserveImproved);

void BM_ObserveLower(benchmark::State& state) {
    observe_repeatable(state, CheckpointEvaluationPolicy(settings(kEndlessPatience), with_best()),
                       kBest - 0.25, DecisionReason::lower);
}
BENCHMARK(BM_ObserveLower);

void BM_ObservePatienceExhausted(benchmark::State& state) {
    // One lower score short of patience: the next lower score stops the run.
    observe_fresh(state, CheckpointEvaluationPolicy(settings(3), with_best(/*streak=*/2)), kBest - 0.25,
                  DecisionReason::patience_exhausted);
}
BENCHMARK(BM_ObservePatienceExhausted)->UseManualTime();

void BM_ObserveTieReset(benchmark::State& state) {
    observe_repeatable(state, CheckpointEvaluationPolicy(settings(3, TiePolicy::reset), with_best(1)), kBest,
                       DecisionReason::tie_reset);
}
BENCHMARK(BM_ObserveTieReset);

void BM_ObserveTieIgnore(benchmark::State& state) {
    observe_repeatable(state, CheckpointEvaluationPolicy(settings(3, TiePolicy::ignore), with_best(1)), kBest,
                       DecisionReason::tie_ignored);
}
BENCHMARK(BM_ObserveTieIgnore);

void BM_ObserveTieStop(benchmark::State& state) {
    // A tie under "stop" ends the run, so every iteration starts again from the prepared policy.
    observe_fresh(state, CheckpointEvaluationPolicy(settings(3, TiePolicy::stop), with_best()), kBest,
                  DecisionReason::tie_stop);
}
BENCHMARK(BM_ObserveTieStop)->UseManualTime();

void BM_ObserveTieCount(benchmark::State& state) {
    observe_repeatable(state,
                       CheckpointEvaluationPolicy(settings(kEndlessPatience, TiePolicy::count), with_best()),
                       kBest, DecisionReason::tie_counted);
}
BENCHMARK(BM_ObserveTieCount);

void BM_ObserveWarmup(benchmark::State& state) {
    // A drop before patience_start_step is a health check: it never consumes patience.
    observe_repeatable(state, CheckpointEvaluationPolicy(settings(3, TiePolicy::reset, 1'000), with_best()),
                       kBest - 0.25, DecisionReason::patience_warmup_lower);
}
BENCHMARK(BM_ObserveWarmup);

void BM_ObserveExternalBaseline(benchmark::State& state) {
    // The baseline is recorded only into a state without a best; once set, the call is a no-op.
    // Starting each iteration from an empty policy times the recording path a trainer takes.
    const CheckpointEvaluationPolicy prepared(settings(3));
    for (auto _ : state) {
        CheckpointEvaluationPolicy policy = prepared;
        benchmark::DoNotOptimize(policy);
        bool external = policy.establish_external_baseline(0.5, 0).best_is_external;
        benchmark::DoNotOptimize(external);
        if (!external) [[unlikely]] {
            state.SkipWithError("establish_external_baseline did not record the baseline");
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ObserveExternalBaseline);

void BM_ObserveApplyDecision(benchmark::State& state) {
    // Alternate a save and a non-save decision, so the flags really change on every call.
    CheckpointEvaluationPolicy policy(settings(kEndlessPatience), with_best());
    const CheckpointEvaluationDecision decisions[2] = {policy.observe(kBest + 1.0, kStep),
                                                       policy.observe(kBest, kStep + 1)};
    ckpt::TrainerControl control;
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& decision = decisions[i++ & 1U];
        ckpt::apply_checkpoint_evaluation_decision(control, decision);
        benchmark::DoNotOptimize(control.should_save);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ObserveApplyDecision);

}  // namespace
