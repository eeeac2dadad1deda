// The scenario line's members (scenario_line.hpp) against what the line held before: nlohmann's
// compact dump of Scenario::to_json(), as append_json_value writes it. Every swarm scenario of
// the first seeds, and the same scenarios with every optional member and awkward values set.
#include "sim/world/scenario_line.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "sim/scenario/swarm.hpp"

namespace ckpt::sim {
namespace {

std::string dumped(const Scenario& scenario) {
    std::string text;
    append_json_value(text, scenario.to_json());
    return text;
}

std::string written(const Scenario& scenario) {
    return "{" + scenario_fields(scenario).members() + "}";
}

// Every optional member of to_json, values at their edges, and a fault of every action, aim,
// scope and kind.
Scenario with_everything(Scenario scenario, std::uint64_t variant) {
    auto& callbacks = scenario.callbacks;
    auto& trainer = scenario.trainer;
    callbacks.early_stopping_mixed_keys = (variant & 1U) != 0;
    callbacks.upgraded_across_resume = (variant & 2U) != 0;
    callbacks.early_stopping_threshold = (variant & 4U) != 0 ? 0.1 : std::nan("");
    callbacks.early_stopping_patience = static_cast<int>(variant % 7);
    if ((variant & 8U) != 0) {
        callbacks.resume_change.policy = callbacks.policy;
    }
    if ((variant & 16U) != 0) {
        callbacks.resume_change.early_stopping = std::vector<int>{1, 0, 3};
    }
    if ((variant & 32U) != 0) {
        scenario.buggify = {"crash_after_stop_persisted", "a \"quoted\" \\ name\n"};
    }
    trainer.metric_for_best_model = (variant & 64U) != 0 ? "eval_\"loss\"\u00e9" : "eval_accuracy";
    trainer.greater_is_better = (variant & 128U) != 0 ? std::optional<bool>(false) : std::nullopt;
    callbacks.regular_steps = (variant & 256U) != 0 ? std::optional<std::int64_t>(7) : std::nullopt;
    trainer.transformers_release = (variant & 1U) != 0 ? TransformersRelease::v5 : TransformersRelease::v4_57;
    callbacks.gate_steps = {0, 1, std::numeric_limits<std::int64_t>::max()};
    scenario.score.script = {0.1, -0.0, 1e300, 5e-324, std::numeric_limits<double>::infinity(), 2.0};
    scenario.seed = std::numeric_limits<std::uint64_t>::max() - variant;
    for (int action = 0; action < 6; ++action) {
        for (int aim = 0; aim < 3; ++aim) {
            PlannedFault fault;
            fault.action = static_cast<FaultAction>(action);
            fault.aim = static_cast<FaultAim>(aim);
            fault.scope = aim == 1 ? CrashScope::rank : CrashScope::job;
            fault.kind = aim == 2 ? CrashKind::power_loss : CrashKind::process_kill;
            fault.rank = aim + 1;
            fault.at_step = 40 + aim;
            fault.occurrence = std::numeric_limits<std::uint32_t>::max() - static_cast<std::uint32_t>(aim);
            scenario.faults.push_back(fault);
        }
    }
    return scenario;
}

TEST(ScenarioLine, SwarmScenariosAreTheirDumpedTree) {
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        const Scenario scenario = draw_scenario(seed);
        ASSERT_EQ(written(scenario), dumped(scenario)) << "seed " << seed;
    }
}

TEST(ScenarioLine, EveryOptionalMemberAndEdgeValue) {
    for (std::uint64_t variant = 0; variant < 512; ++variant) {
        const Scenario scenario = with_everything(draw_scenario(variant + 1), variant);
        ASSERT_EQ(written(scenario), dumped(scenario)) << "variant " << variant;
    }
}

}  // namespace
}  // namespace ckpt::sim
