// A replayable scenario on disk: scenario, mutant and expected verdicts, so a regression corpus
// entry checks itself. Malformed files are sim::ScenarioError; depends on sim/world and
// sim/scenario.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {

// A replayable scenario on disk: the scenario, the mutant it was found with (if any), and the
// verdicts it is expected to give, so a regression corpus entry checks itself.
//   {"scenario": {...}, "mutant": "tie_replaces_best", "expected": {"P1": "held", ...},
//    "callback": {"argv": [...], "timeout_ms": 30000, "identity": {...}}}
// A bare scenario object is accepted too.
struct ScenarioFile {
    Scenario scenario;
    std::optional<mutants::Mutant> mutant;
    // Property id -> "held" | "violated"; only the listed properties are checked.
    nlohmann::json expected = nlohmann::json::object();
    // An external callback run in place of the C++ port, and what its process said it loaded
    // (shim and Python versions, class, binding, source digests) when the file was written.
    std::optional<CallbackSpec> callback;
    nlohmann::json callback_identity;

    static ScenarioFile parse(const nlohmann::json& document);
    static ScenarioFile load(const std::string& path);
    nlohmann::json to_json() const;
    void save(const std::string& path) const;
};

// Runs the file's scenario under its mutant, with its external callback if it names one.
ScenarioResult run_scenario_file(const ScenarioFile& file, const RunOptions& options = {});

// Property id -> "held"/"violated" for every property, P8 included when `determinism` is given.
nlohmann::json verdicts(const ScenarioResult& result, std::optional<bool> determinism_held = std::nullopt);

}  // namespace ckpt::sim
