// The policy's durable and broadcast formats: state_dict() to the JSON text a sidecar or
// trainer_state.json carries, that text back through load_state_dict, and a decision's
// to_dict/from_dict as it crosses the rank-zero broadcast.
//
// Names keep the BM_StateToJson / BM_StateFromJson prefixes (the decision variants carry a
// suffix) so `--benchmark_filter=BM_StateToJson` selects every serialisation direction at once.
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "policy/base/untrusted_json.hpp"
#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/formats/state_json_reader.hpp"
#include "policy/formats/state_json_text.hpp"

namespace {

using ckpt::CheckpointEvaluationDecision;
using ckpt::CheckpointEvaluationPolicy;
using ckpt::CheckpointEvaluationState;
using ckpt::PolicySettings;
using ckpt::TiePolicy;
using nlohmann::json;

// A mid-run policy: every optional field present, so no field takes the cheap null path.
CheckpointEvaluationPolicy mid_run_policy() {
    return CheckpointEvaluationPolicy(
        PolicySettings{.patience = 5, .tie_policy = TiePolicy::count, .patience_start_step = 200},
        CheckpointEvaluationState{.best_score = 0.8125,
                                  .best_step = 1'500,
                                  .lower_score_streak = 2,
                                  .evaluation_count = 37,
                                  .stop_requested = false,
                                  .best_is_external = false});
}

// A lower-score decision, the kind the trainer broadcasts most often.
CheckpointEvaluationDecision typical_decision() {
    auto policy = mid_run_policy();
    return policy.observe(0.79, 1'600);
}

void BM_StateToJson(benchmark::State& state) {
    const auto policy = mid_run_policy();
    std::size_t bytes = 0;
    for (auto _ : state) {
        // The product's own writer (the sidecar's): the same text as state_dict().dump().
        std::string text = ckpt::state_dict_text(policy);
        bytes += text.size();
        benchmark::DoNotOptimize(text);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_StateToJson);

void BM_StateFromJson(benchmark::State& state) {
    // The product's text reader (policy/formats/state_json_reader.hpp) on the compact
    // text. Loading into a policy with the same settings is what a resume does; load_state_dict
    // refuses a payload whose settings differ, so the settings check runs in full. The text is
    // the same every iteration, but the reader cannot skip work for that: it keeps no cache.
    auto policy = mid_run_policy();
    const std::string text = ckpt::state_dict_text(policy);  // compact: state_dict().dump()
    for (auto _ : state) {
        const auto path = ckpt::load_state_dict_text(policy, text, "bench");
        benchmark::DoNotOptimize(policy);
        if (path != ckpt::StateTextPath::exact) [[unlikely]] {
            state.SkipWithError("the written text took the general path");
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_StateFromJson);

// The general path alone: the untrusted parser's tree, then load_state_dict over it. It is what
// any text outside the exact reader's form costs, and the figure BM_StateFromJson had before.
void BM_StateFromJsonTree(benchmark::State& state) {
    auto policy = mid_run_policy();
    const std::string text = ckpt::state_dict_text(policy);  // compact: state_dict().dump()
    for (auto _ : state) {
        policy.load_state_dict(ckpt::parse_untrusted_json(text, "bench"));
        benchmark::DoNotOptimize(policy);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_StateFromJsonTree);

void BM_StateToJsonDecision(benchmark::State& state) {
    // The broadcast carries the json value itself, not text: to_dict() alone is the cost.
    const auto decision = typical_decision();
    for (auto _ : state) {
        json payload = decision.to_dict();
        benchmark::DoNotOptimize(payload);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StateToJsonDecision);

void BM_StateFromJsonDecision(benchmark::State& state) {
    const json payload = typical_decision().to_dict();
    for (auto _ : state) {
        auto decision = CheckpointEvaluationDecision::from_dict(payload);
        benchmark::DoNotOptimize(decision);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StateFromJsonDecision);

}  // namespace
