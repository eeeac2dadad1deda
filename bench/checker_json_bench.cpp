// The checkers' reads of what the simulated disk holds, on real bytes the simulator wrote
// (fuzz/corpus/json_scanner/): the trainer's best fields out of a trainer_state.json, and the
// durable sidecar as the ledger writer reads it after each write. The DOM parse of the same
// trainer_state.json is the baseline every reader must beat.
#include <fstream>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/top_level_fields.hpp"
#include "sim/events/job_constants.hpp"

namespace {

std::string corpus_text(const char* name) {
    std::ifstream in(std::string(CKPT_FUZZ_CORPUS) + "/json_scanner/" + name, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

void BM_CheckerReadTrainerBest(benchmark::State& state) {
    const auto text = corpus_text("trainer_state_seed9.json");
    for (auto _ : state) {
        auto fields = ckpt::sim::read_top_level_fields(
            text, {"best_metric", "best_global_step", "best_model_checkpoint"});
        benchmark::DoNotOptimize(fields);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_CheckerReadTrainerBest);

void BM_CheckerParseTrainerStateDom(benchmark::State& state) {
    const auto text = corpus_text("trainer_state_seed9.json");
    for (auto _ : state) {
        auto tree = nlohmann::json::parse(text, nullptr, false);
        benchmark::DoNotOptimize(tree);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_CheckerParseTrainerStateDom);

void BM_CheckerReadDurableSidecar(benchmark::State& state) {
    ckpt::sim::SimFileSystem fs;
    fs.mkdir("/run");
    fs.mkdir(ckpt::sim::kOutputDir);
    fs.write_file(ckpt::join_path(ckpt::sim::kOutputDir, ckpt::kSidecarName),
                  corpus_text("sidecar_seed2.json"));
    fs.sync_all();
    for (auto _ : state) {
        auto sidecar = ckpt::sim::read_durable_sidecar(fs);
        benchmark::DoNotOptimize(sidecar);
    }
}
BENCHMARK(BM_CheckerReadDurableSidecar);

}  // namespace
