// The bridge from RapidCheck to the simulator: run a scenario, fail the case on a violated
// property, and leave the minimal counterexample behind as a replayable scenario file. Each
// property runs its scenario once (P8 twice); test-only, depends on sim/world and sim/checks.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::properties {

// Where counterexamples are written: $CKPT_COUNTEREXAMPLE_DIR when set, else the working
// directory (under CTest, the test binary's build directory, where CI can collect them).
std::filesystem::path counterexample_dir();

// Saves the run's scenario, the mutant armed on this thread (if any) and every verdict it gave
// as a replayable scenario file, ckptsim-counterexample-<P>[-<mutant>]-<seed>.json, and returns
// its absolute path. RapidCheck calls a property again for every smaller candidate while it
// shrinks; each new counterexample for the same property replaces the previous file, so the
// file left behind is the last failing case, the minimal one.
std::string save_counterexample(sim::Property property, const sim::ScenarioResult& result,
                                std::optional<bool> determinism_held = std::nullopt);

// The file save_counterexample last wrote in this process for `property` under the mutant armed
// on this thread, if any: after a failed RapidCheck run, the minimal counterexample.
std::optional<std::filesystem::path> last_counterexample(sim::Property property);

// Tags the case for RapidCheck's distribution table: the outcome, every fault kind that fired
// and every crash point a crash was injected at, so a run shows what its cases exercised.
void classify(const sim::ScenarioResult& result);

// Fails the current RapidCheck case with the property in words, the violation, the file and the
// replay command. RapidCheck adds its own RC_PARAMS="reproduce=..." line when the run ends.
[[noreturn]] void fail_property(sim::Property property, const std::string& violation,
                                const std::string& path);

// Runs `scenario` in the simulator and fails the case if `property` is violated. P8 runs the
// scenario twice and compares the trace hashes. Returns the (first) run's result.
sim::ScenarioResult check_property(sim::Property property, const sim::Scenario& scenario);

}  // namespace ckpt::properties
