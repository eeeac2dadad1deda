// Runs one scenario from a fresh simulated disk to its end, resuming after every crash, with
// every property checked on the way. Deterministic: same scenario and build, same result and
// trace hash. The entry point for the CLI, the properties and the benchmarks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/property.hpp"
#include "sim/external/callback_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/world/run_stats.hpp"

namespace ckpt::sim {

class TraceLineSink;

struct RunOptions {
    bool keep_trace = false;  // keep the JSONL lines in the result; the hash is always computed
    // Also hands every line, as it is written, to this sink (run and replay spool them).
    TraceLineSink* trace_sink = nullptr;
    // Runs this external callback in place of the C++ port (docs/callback-protocol.md).
    const CallbackSpec* external_callback = nullptr;
};

// How a scenario ended, besides its verdicts.
enum class Outcome : std::uint8_t {
    finished,          // max_steps or a policy stop
    failed_explained,  // ended by an error an injected fault explains (corrupt sidecar, ...)
    resume_failed,     // Transformers' resume failed where Transformers fails (#35782, no weights)
    refused,           // the callback refused the TrainingArguments at on_train_begin
    hung,              // a dead rank hangs the job and no watchdog is armed
    violated,          // stopped by a failure nothing explains (reported as P12)
    harness_error,     // an external callback left the simulated surface or broke the protocol
};
std::string_view to_string(Outcome outcome) noexcept;

struct ScenarioResult {
    Scenario scenario;
    Outcome outcome = Outcome::finished;
    std::string outcome_detail;
    std::vector<Violation> violations;
    std::string trace_hash;
    std::uint64_t trace_hash_value = 0;
    std::vector<std::string> trace;
    RunStats stats;
    // What the external callback's first process said it loaded (its ready line), or null.
    nlohmann::json callback_identity;

    bool held(Property property) const noexcept;
    bool ok() const noexcept { return violations.empty(); }
};

// Runs one scenario from a fresh simulated disk to its end, resuming after every crash, with
// every property checked along the way. Deterministic: same scenario and build, same result.
ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace ckpt::sim
