// What `run` and `replay` print for one scenario, in words or as JSON, plus the trace writer.
// A violated run saves a replayable file and says how to replay it; file errors are
// sim::ScenarioError. Depends on sim/world.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/cli/trace_spool.hpp"
#include "sim/world/scenario_file.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::cli {

// What `run` and `replay` print for one scenario, in words or as one JSON object.
struct ScenarioReport {
    sim::ScenarioFile file;
    sim::ScenarioResult result;
    bool deterministic = true;   // P8: a second run gave the same trace hash
    std::string replay_command;  // set when a property was violated and the file was saved
};

// Runs a scenario file twice (P8), the first run's trace lines into `trace` (which may be null),
// and saves it under `out_dir` (unless empty) when a property fails.
ScenarioReport run_and_report(const sim::ScenarioFile& file, sim::TraceLineSink* trace,
                              const std::string& out_dir);

void print_report(std::ostream& out, const ScenarioReport& report);
nlohmann::json report_json(const ScenarioReport& report);
// "crash@after_evaluation#2(job, power_loss:torn), io_error(sidecar_rename, eio)#1"
std::string describe_faults(const sim::Scenario& scenario);

// Writes the spooled trace to `path` as JSON Lines (- for stdout), whole or not at all; throws
// sim::ScenarioError if it cannot.
void write_trace(const std::string& path, const TraceSpool& trace);

}  // namespace ckpt::cli
