// Helpers the world tests share for running a hand-built scenario and reading its trace: the run
// with the trace kept, the events of one kind parsed, and a failed run described for the reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"
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

// 40 steps in one epoch on `ranks` ranks, an evaluation and a save every 10 steps, scores rising
// (0.1 to 0.4, so each evaluation saves), patience out of the way, and one process kill: `point`'s
// `occurrence`-th passage, on `rank` alone or, without one, on the whole job.
inline Scenario rising_scores_with_a_kill(int ranks, CrashPoint point, std::uint32_t occurrence,
                                          std::optional<int> rank = std::nullopt) {
    Scenario s;
    s.seed = 5;
    s.job.ranks = ranks;
    s.trainer.max_steps = 40;
    s.trainer.steps_per_epoch = 40;
    s.trainer.save_steps = 10;
    s.trainer.save_total_limit = 3;
    s.callbacks.policy.patience = 3;
    s.callbacks.policy.patience_start_step = 0;
    s.score.kind = ScoreKind::scripted;
    s.score.script = {0.1, 0.2, 0.3, 0.4};
    PlannedFault kill;
    kill.action = FaultAction::crash;
    kill.point = point;
    kill.occurrence = occurrence;
    kill.scope = rank ? CrashScope::rank : CrashScope::job;
    kill.rank = rank.value_or(0);
    kill.kind = CrashKind::process_kill;
    s.faults.push_back(kill);
    return s;
}

// The checkpoint the run's first resume started from ("" when it never resumed).
inline std::string first_resume(const ScenarioResult& result) {
    for (const auto& line : result.trace) {
        const auto event = nlohmann::json::parse(line);
        if (event.at("kind") == "resume") {
            return event.at("checkpoint").get<std::string>();
        }
    }
    return "";
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
