// TriggerCallback::persist: the sidecar write a lower score costs (write a temp file, fsync,
// rename over the sidecar, fsync the directory). Measured on the simulator's SimFileSystem, the
// CPU cost of the policy code and the crash model, and on the real file system, which is what a
// user pays per evaluation.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/statfs.h>

#include <benchmark/benchmark.h>

#include "policy/ports/collective.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace {

using ckpt::TriggerCallback;
using ckpt::TriggerCallbackConfig;

TriggerCallbackConfig config_in(const std::string& output_dir) {
    TriggerCallbackConfig config;
    config.regular_steps = 50;
    config.output_dir = output_dir;
    return config;
}

// A mid-run state, so the sidecar holds a best and counters rather than nulls.
void give_history(TriggerCallback& callback) {
    auto& policy = callback.policy();
    policy.observe(0.5, 50);
    policy.observe(0.75, 100);
    policy.observe(0.625, 150);
}

bool wrote_sidecar(benchmark::State& state, const std::optional<std::string>& path) {
    if (path) [[likely]] {
        return true;
    }
    state.SkipWithError("persist wrote no sidecar");
    return false;
}

void BM_PersistSimFileSystem(benchmark::State& state) {
    ckpt::sim::SimFileSystem fs;
    ckpt::SingleProcessCollective collective;
    TriggerCallback callback(config_in("/run/output"), fs, collective);
    give_history(callback);
    // The simulated disk keeps every replaced temp file's inode; starting it afresh now and
    // then keeps its size (and cache footprint) like a real output directory's. The pause is
    // rare enough that its own cost does not show.
    constexpr std::int64_t kResetEvery = 1 << 14;
    std::int64_t since_reset = 0;
    for (auto _ : state) {
        if (++since_reset == kResetEvery) {
            state.PauseTiming();
            fs.reset();
            since_reset = 0;
            state.ResumeTiming();
        }
        const auto path = callback.persist();
        if (!wrote_sidecar(state, path)) {
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PersistSimFileSystem);

std::string file_system_name(const std::string& path) {
    struct statfs info {};
    if (::statfs(path.c_str(), &info) != 0) {
        return "unknown";
    }
    switch (static_cast<unsigned long>(info.f_type)) {
        case 0xEF53UL:
            return "ext4";
        case 0x01021994UL:
            return "tmpfs";  // fsync is a no-op there: the figure would not be a user's cost
        case 0x58465342UL:
            return "xfs";
        case 0x9123683EUL:
            return "btrfs";
        case 0x794C7630UL:
            return "overlayfs";
        default:
            return "f_type=" + std::to_string(static_cast<unsigned long>(info.f_type));
    }
}

void BM_PersistPosixFsync(benchmark::State& state) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ckpt_bench_persist.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        state.SkipWithError("mkdtemp failed");
        return;
    }
    const std::string output_dir = pattern;
    {
        ckpt::PosixFileSystem fs;
        ckpt::SingleProcessCollective collective;
        TriggerCallback callback(config_in(output_dir), fs, collective);
        give_history(callback);
        for (auto _ : state) {
            const auto path = callback.persist();
            if (!wrote_sidecar(state, path)) {
                break;
            }
        }
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel("fs=" + file_system_name(output_dir));
    std::error_code ignored;
    std::filesystem::remove_all(output_dir, ignored);
}
// fsync blocks without using the CPU, so only wall time tells what the trainer waits.
BENCHMARK(BM_PersistPosixFsync)->UseRealTime();

}  // namespace
