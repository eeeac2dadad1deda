// libFuzzer target: the sidecar loader. The input is checkpoint_eval_state.json's bytes; the
// reader classifies them and the callback's load() adopts or refuses them. Only ValueError,
// RuntimeError and FileSystemError may come out.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "policy/formats/sidecar_format.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/collective.hpp"
#include "policy/trigger/trigger_callback.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ckpt;
    InMemoryFileSystem fs;
    make_dirs(fs, "/out");
    const std::string path = join_path("/out", kSidecarName);
    fs.write_file(path, fuzz::as_text(data, size));
    fuzz::refusals_are_fine([&] {
        const auto document = read_sidecar(fs, path);
        (void)document.last_evaluated_step();
        (void)document.policy_state();
        document.throw_if_malformed(path);
    });
    fuzz::refusals_are_fine([&] {
        SingleProcessCollective collective;
        TriggerCallbackConfig config;
        config.output_dir = "/out";
        TriggerCallback callback(config, fs, collective);
        (void)callback.load(/*is_world_process_zero=*/true);
        (void)callback.policy().state_dict().dump();
    });
    return 0;
}
