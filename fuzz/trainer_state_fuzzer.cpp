// libFuzzer target: trainer_state.json and its stateful_callbacks. The bytes go through the
// completeness probe, the strict parser, the migrations, the walk to the trigger callback's
// saved state and TriggerCallback::from_state, as a resume would take them. The probe and the
// tree parser must agree: the probe reads a step exactly where nlohmann's parse of the text, with
// Python's NaN, Infinity and -Infinity read as numbers, finds that integer global_step.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "policy/base/untrusted_json.hpp"
#include "policy/formats/document_migrations.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/formats/trainer_state_probe.hpp"
#include "policy/inspect/foreign_content.hpp"
#include "policy/ports/collective.hpp"
#include "policy/tests/support/parsed_global_step.hpp"
#include "policy/trigger/trigger_callback.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ckpt;
    const auto text = fuzz::as_text(data, size);
    if (probe_global_step(text) != testing::parsed_global_step(text)) {
        __builtin_trap();  // the probe and the parsed tree (Python's constants read) disagree
    }
    fuzz::refusals_are_fine([&] {
        auto state = migrate_trainer_state(parse_untrusted_json(text, "trainer_state.json"));
        (void)stateful_callbacks_defects(state);
        const auto saved = find_saved_trigger_callback(state);
        if (!saved) {
            return;
        }
        (void)saved_policy_state(saved->state);
        InMemoryFileSystem fs;
        make_dirs(fs, "/out");
        SingleProcessCollective collective;
        auto callback = TriggerCallback::from_state(saved->state, fs, collective);
        (void)callback.policy().state_dict().dump();
    });
    return 0;
}
