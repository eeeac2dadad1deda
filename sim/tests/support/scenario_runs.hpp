// Helpers the world tests share for running a hand-built scenario and reading its trace: the run
// with the trace kept, the events of one kind parsed, and a failed run described for the reader.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/property.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim::testing {

inline ScenarioResult run(const Scenario& scenario) {
    return run_scenario(scenario, RunOptions{.keep_trace = true});
}

// The trace events of one kind, parsed.
inline std::vector<nlohmann::json> events(const ScenarioResult& result, std::string_view kind) {
    std::vector<nlohmann::json> out;
    for (const auto& line : result.trace) {
        auto event = nlohmann::json::parse(line);
        if (event.at("kind") == kind) {
            out.push_back(std::move(event));
        }
    }
    return out;
}

inline std::string describe(const ScenarioResult& result) {
    std::string text =
        "outcome " + std::string(to_string(result.outcome)) + " (" + result.outcome_detail + ")";
    for (const auto& violation : result.violations) {
        text += "\n  " + std::string(id_of(violation.property)) + ": " + violation.message;
    }
    return text;
}

}  // namespace ckpt::sim::testing
