// TriggerCallback::on_step_end, which a trainer calls after every optimizer step: the common
// case where the step is no save event, and the save event it turns into an evaluation.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "policy/callbacks/trainer_control.hpp"
#include "policy/callbacks/trainer_types.hpp"
#include "policy/ports/collective.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace {

using ckpt::TrainerControl;
using ckpt::TrainerStateView;
using ckpt::TriggerCallback;
using ckpt::TriggerCallbackConfig;

constexpr std::int64_t kRegularSteps = 50;

// The configuration a real job would use: warm-up gates and a regular cadence, so the
// schedule test does both its binary search and its modulo on every call. No file is touched
// on this path, so the real file system is only there to satisfy the port.
TriggerCallbackConfig scheduled_config() {
    TriggerCallbackConfig config;
    config.gate_steps = {10, 25, 50};
    config.regular_steps = kRegularSteps;
    return config;
}

void BM_OnStepEndNoEvent(benchmark::State& state) {
    ckpt::PosixFileSystem fs;
    ckpt::SingleProcessCollective collective;
    TriggerCallback callback(scheduled_config(), fs, collective);
    TrainerControl control;
    // Steps between two regular events, advancing like a trainer's global_step; the cycle
    // 51..99 never meets a gate or a multiple of the cadence.
    TrainerStateView view{.global_step = 51, .is_world_process_zero = true};
    for (auto _ : state) {
        callback.on_step_end(view, control);
        benchmark::DoNotOptimize(control.should_evaluate);
        view.global_step = view.global_step == 99 ? 51 : view.global_step + 1;
    }
    if (callback.trigger_count() != 0) {
        state.SkipWithError("a step between events was treated as a save event");
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OnStepEndNoEvent);

void BM_OnStepEndRedirect(benchmark::State& state) {
    ckpt::PosixFileSystem fs;
    ckpt::SingleProcessCollective collective;
    TriggerCallback callback(scheduled_config(), fs, collective);
    TrainerControl control;
    // Every call lands on the regular cadence with DefaultFlowCallback's save flag set, as at a
    // real save event; the callback trades the save for an evaluation each time.
    TrainerStateView view{.global_step = 2 * kRegularSteps, .is_world_process_zero = true};
    for (auto _ : state) {
        control.should_save = true;
        callback.on_step_end(view, control);
        benchmark::DoNotOptimize(control.should_evaluate);
        view.global_step += kRegularSteps;
    }
    if (callback.trigger_count() != static_cast<std::int64_t>(state.iterations())) {
        state.SkipWithError("a save event was not redirected to an evaluation");
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OnStepEndRedirect);

}  // namespace
