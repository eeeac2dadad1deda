// libFuzzer target: the scenario loader. A scenario file the loader accepts must survive a
// save and a reload unchanged (what replay relies on); everything else must be a ScenarioError.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "policy/base/untrusted_json.hpp"
#include "sim/world/scenario_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ckpt;
    fuzz::refusals_are_fine([&] {
        const auto file =
            sim::ScenarioFile::parse(parse_untrusted_json(fuzz::as_text(data, size), "scenario"));
        file.scenario.validate();
        const auto saved = file.to_json();
        if (sim::ScenarioFile::parse(saved).to_json() != saved) {
            __builtin_trap();  // a replay would not run what was saved
        }
    });
    return 0;
}
