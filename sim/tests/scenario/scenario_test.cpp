// Scenario files: a scenario must survive JSON exactly (a replay needs nothing else), and a bad
// file must be refused with the field it got wrong, which the CLI turns into exit status 2.
#include "sim/scenario/scenario.hpp"

#include <cstdint>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/swarm.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the ScenarioError that from_json raises, or "" when it accepts the document.
// The document goes through text first, as a scenario file does: the parser reads a
// non-negative number as unsigned, which an object built in code would not be.
std::string rejection(const json& document) {
    try {
        Scenario::from_json(json::parse(document.dump()));
    } catch (const ScenarioError& error) {
        return error.what();
    }
    return "";
}

TEST(ScenarioJson, DrawnScenariosRoundTrip) {
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
        const auto drawn = draw_scenario(seed);
        const auto document = drawn.to_json();
        const auto again = Scenario::from_json(document).to_json();
        ASSERT_EQ(again, document) << "seed " << seed;
        // Byte for byte too: the trace records the scenario's text, so its hash depends on it.
        ASSERT_EQ(again.dump(), document.dump()) << "seed " << seed;
    }
}

TEST(ScenarioJson, TextRoundTripKeepsEveryNumberExact) {
    const auto drawn = draw_scenario(12345);
    const auto reread = Scenario::from_json(json::parse(drawn.to_json().dump(2)));
    EXPECT_EQ(reread.to_json(), drawn.to_json());
    EXPECT_EQ(reread.seed, 12345U);
    EXPECT_EQ(reread.trainer.max_steps, drawn.trainer.max_steps);
    EXPECT_EQ(reread.score.script, drawn.score.script);
}

TEST(ScenarioJson, ASeedAboveInt64RoundTrips) {
    // Seeds are uint64: a value with the top bit set must not come back negative or clipped.
    auto scenario = draw_scenario(7);
    scenario.seed = 18446744073709551615ULL;
    const auto reread = Scenario::from_json(json::parse(scenario.to_json().dump()));
    EXPECT_EQ(reread.seed, 18446744073709551615ULL);
}

// The JSON is complete: a scenario read back from its file runs exactly like the original.
TEST(ScenarioJson, AReadBackScenarioReplaysIdentically) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const auto drawn = draw_scenario(seed);
        const auto reread = Scenario::from_json(json::parse(drawn.to_json().dump()));
        EXPECT_EQ(run_scenario(reread).trace_hash, run_scenario(drawn).trace_hash) << "seed " << seed;
    }
}

TEST(ScenarioJson, HandBuiltScenarioWithEveryFaultKindRoundTrips) {
    Scenario s;
    s.seed = 99;
    s.job.ranks = 4;
    s.trainer.max_steps = 321;
    s.trainer.steps_per_epoch = 77;
    s.trainer.save_strategy = SaveStrategy::epoch;
    s.trainer.save_steps = 13;
    s.callbacks.gate_steps = {10, 25, 50};
    s.callbacks.regular_steps = 40;
    s.callbacks.policy.patience = 5;
    s.callbacks.policy.tie_policy = TiePolicy::count;
    s.callbacks.policy.patience_start_step = 60;
    s.trainer.save_total_limit = 3;
    s.trainer.protect_best_in_rotation = true;
    s.trainer.resume_rule = ResumeRule::transformers;
    s.callbacks.early_stopping_callbacks = 2;
    s.callbacks.early_stopping_state_keys = true;
    s.score.kind = ScoreKind::scripted;
    s.score.script = {0.1, 0.30000000000000004, 1.0 / 3.0};
    s.score.noisy_replay = true;
    s.score.external_baseline = true;
    s.job.watchdog = false;
    PlannedFault power;
    power.action = FaultAction::crash;
    power.point = CrashPoint::during_rotation;
    power.occurrence = 2;
    power.kind = CrashKind::power_loss;
    power.power_loss = PowerLossMode::torn;
    PlannedFault rank_kill;
    rank_kill.action = FaultAction::crash;
    rank_kill.point = CrashPoint::inside_sidecar_write;
    rank_kill.scope = CrashScope::rank;
    rank_kill.rank = 3;
    PlannedFault io;
    io.action = FaultAction::io_error;
    io.target = IoTarget::link_rename;
    io.error = FaultKind::short_write;
    io.occurrence = 4;
    PlannedFault death;
    death.action = FaultAction::rank_death;
    death.rank = 2;
    death.at_step = 111;
    PlannedFault corrupt;
    corrupt.action = FaultAction::corrupt_checkpoint;
    corrupt.at_step = 200;
    s.faults = {power, rank_kill, io, death, corrupt};

    const auto document = s.to_json();
    // Spot checks against the spelling a user writes by hand.
    EXPECT_EQ(document.at("save_strategy"), "epoch");
    EXPECT_EQ(document.at("resume_rule"), "transformers");
    EXPECT_EQ(document.at("policy").at("tie_policy"), "count");
    EXPECT_EQ(document.at("faults").at(0).at("point"), "during_rotation");
    EXPECT_EQ(document.at("faults").at(0).at("power_loss"), "torn");
    EXPECT_EQ(document.at("faults").at(1).at("rank"), 3);
    EXPECT_EQ(document.at("faults").at(2).at("target"), "link_rename");
    EXPECT_EQ(document.at("faults").at(2).at("error"), "short_write");

    const auto reread = Scenario::from_json(json::parse(document.dump()));
    EXPECT_EQ(reread.to_json(), document);
    ASSERT_EQ(reread.faults.size(), 5U);
    EXPECT_EQ(reread.faults[0].power_loss, PowerLossMode::torn);
    EXPECT_EQ(reread.faults[1].scope, CrashScope::rank);
    EXPECT_EQ(reread.faults[1].rank, 3);
    EXPECT_EQ(reread.faults[2].occurrence, 4U);
    EXPECT_EQ(reread.faults[3].at_step, 111);
    EXPECT_EQ(reread.callbacks.regular_steps, std::optional<std::int64_t>(40));
    EXPECT_EQ(reread.score.script[1], 0.1 + 0.2);
}

TEST(ScenarioJson, AMinimalDocumentTakesTheDefaults) {
    const auto s = Scenario::from_json(json::parse(R"({"seed": 5})"));
    EXPECT_EQ(s.seed, 5U);
    EXPECT_EQ(s.job.ranks, 1);
    EXPECT_EQ(s.trainer.max_steps, 500);
    EXPECT_EQ(s.trainer.resume_rule, ResumeRule::fixed);
    EXPECT_TRUE(s.faults.empty());
    EXPECT_TRUE(s.job.watchdog);
}

// A document built in code holds small numbers as signed integers; the uint64 seed must still
// be read (the library's own tests and tools build scenarios this way).
TEST(ScenarioJson, ASignedIntegerSeedIsAccepted) {
    Scenario s;
    EXPECT_NO_THROW(s = Scenario::from_json(json{{"seed", 5}, {"ranks", 2}}));
    EXPECT_EQ(s.seed, 5U);
    EXPECT_EQ(s.job.ranks, 2);
}

TEST(ScenarioValidation, OutOfRangeNumbersNameTheField) {
    EXPECT_THAT(rejection({{"seed", 1}, {"ranks", 9}}), HasSubstr("ranks"));
    EXPECT_THAT(rejection({{"seed", 1}, {"ranks", 0}}), HasSubstr("ranks"));
    EXPECT_THAT(rejection({{"seed", 1}, {"max_steps", 0}}), HasSubstr("max_steps"));
    EXPECT_THAT(rejection({{"seed", 1}, {"save_steps", -5}}), HasSubstr("save_steps"));
    EXPECT_THAT(rejection({{"seed", 1}, {"policy", {{"patience", 0}}}}), HasSubstr("patience"));
    EXPECT_THAT(rejection({{"seed", 1}, {"ranks", "two"}}), HasSubstr("ranks"));
    EXPECT_THAT(rejection({{"seed", 1}, {"watchdog", 1}}), HasSubstr("watchdog"));
    EXPECT_THAT(rejection({{"seed", 1}, {"gate_steps", {10, 0}}}), HasSubstr("gate_steps"));
    EXPECT_THAT(rejection({{"seed", 1}, {"early_stopping_mixed_keys", true}}),
                HasSubstr("early_stopping_mixed_keys"));
    EXPECT_THAT(rejection({{"seed", 1}, {"upgraded_across_resume", 1}}), HasSubstr("upgraded_across_resume"));
    EXPECT_THAT(rejection({{"seed", 1}, {"save_only_model", 1}}), HasSubstr("save_only_model"));
    EXPECT_THAT(rejection({{"seed", 1}, {"early_stopping_callback", "keras"}}),
                HasSubstr("early_stopping_callback"));
    // Lightning's state keys are the port's: Transformers' callback has none.
    EXPECT_THAT(
        rejection(
            {{"seed", 1}, {"early_stopping_callback", "transformers"}, {"early_stopping_state_keys", true}}),
        HasSubstr("early_stopping_state_keys"));
}

// Mixed keys: the callbacks of even identity carry none. An upgrade: the first incarnation
// writes the seed's version 1, every later one version 2.
TEST(ScenarioCallbacks, MixedKeysAndTheUpgradeAreStatedPerCallbackAndPerIncarnation) {
    CallbackOptions callbacks;
    callbacks.early_stopping_state_keys = true;
    EXPECT_TRUE(early_stopping_keyed(callbacks, 0));
    callbacks.early_stopping_mixed_keys = true;
    EXPECT_FALSE(early_stopping_keyed(callbacks, 0));
    EXPECT_TRUE(early_stopping_keyed(callbacks, 1));
    EXPECT_FALSE(early_stopping_keyed(callbacks, 2));
    EXPECT_EQ(sidecar_version_written(callbacks, 0), 2);
    callbacks.upgraded_across_resume = true;
    EXPECT_EQ(sidecar_version_written(callbacks, 0), 1);
    EXPECT_EQ(sidecar_version_written(callbacks, 1), 2);
}

TEST(ScenarioValidation, MissingSeedIsNamed) {
    EXPECT_THAT(rejection({{"ranks", 2}}), HasSubstr("seed"));
    EXPECT_THAT(rejection(json::array()), ::testing::Not(::testing::IsEmpty()));
}

TEST(ScenarioValidation, UnknownFieldsAreNamedAtTheirPath) {
    EXPECT_THAT(rejection({{"seed", 1}, {"rankz", 2}}),
                AllOf(HasSubstr("rankz"), HasSubstr("unknown field")));
    EXPECT_THAT(rejection({{"seed", 1}, {"score", {{"kind", "scripted"}, {"scrpt", {0.5}}}}}),
                AllOf(HasSubstr("score.scrpt"), HasSubstr("unknown field")));
    EXPECT_THAT(rejection({{"seed", 1}, {"faults", {{{"action", "crash"}, {"when", 3}}}}}),
                AllOf(HasSubstr("faults[0].when"), HasSubstr("unknown field")));
}

TEST(ScenarioValidation, AFaultRankMustExist) {
    // Two ranks are 0 and 1: rank 1 is fine, rank 2 names a rank that is not there.
    const json ok = {
        {"seed", 1}, {"ranks", 2}, {"faults", {{{"action", "rank_death"}, {"rank", 1}, {"at_step", 10}}}}};
    EXPECT_EQ(rejection(ok), "");
    const json bad = {{"seed", 1},
                      {"ranks", 2},
                      {"faults",
                       {{{"action", "preemption"}, {"at_step", 5}},
                        {{"action", "rank_death"}, {"rank", 2}, {"at_step", 10}}}}};
    EXPECT_THAT(rejection(bad), HasSubstr("faults[1].rank"));
    // The constructed-in-code path checks the same rule.
    auto scenario = Scenario::from_json(json::parse(ok.dump()));
    scenario.faults[0].rank = 2;
    EXPECT_THROW(scenario.validate(), ScenarioError);
}

TEST(ScenarioValidation, BadEnumNamesListTheChoices) {
    EXPECT_THAT(rejection({{"seed", 1}, {"resume_rule", "latest"}}),
                AllOf(HasSubstr("resume_rule"), HasSubstr("transformers"), HasSubstr("fixed")));
    EXPECT_THAT(rejection({{"seed", 1}, {"save_strategy", "hourly"}}),
                AllOf(HasSubstr("save_strategy"), HasSubstr("steps"), HasSubstr("epoch")));
    EXPECT_THAT(rejection({{"seed", 1}, {"policy", {{"tie_policy", "median"}}}}),
                AllOf(HasSubstr("tie_policy"), HasSubstr("reset"), HasSubstr("ignore"), HasSubstr("stop"),
                      HasSubstr("count")));
    EXPECT_THAT(rejection({{"seed", 1}, {"score", {{"kind", "gaussian"}}}}),
                AllOf(HasSubstr("score.kind"), HasSubstr("scripted"), HasSubstr("random_walk"),
                      HasSubstr("improve_then_plateau"), HasSubstr("quantised")));
    EXPECT_THAT(rejection({{"seed", 1}, {"faults", {{{"action", "meteor"}}}}}),
                AllOf(HasSubstr("faults[0].action"), HasSubstr("crash"), HasSubstr("io_error"),
                      HasSubstr("corrupt_sidecar"), HasSubstr("corrupt_checkpoint"), HasSubstr("rank_death"),
                      HasSubstr("preemption")));
    EXPECT_THAT(rejection({{"seed", 1}, {"faults", {{{"action", "crash"}, {"point", "nowhere"}}}}}),
                AllOf(HasSubstr("faults[0].point"), HasSubstr("step_end"), HasSubstr("after_evaluation"),
                      HasSubstr("inside_trainer_state_write"), HasSubstr("after_on_save")));
    EXPECT_THAT(rejection({{"seed", 1}, {"faults", {{{"action", "io_error"}, {"target", "disk"}}}}}),
                AllOf(HasSubstr("faults[0].target"), HasSubstr("sidecar_rename"), HasSubstr("link_symlink")));
    EXPECT_THAT(
        rejection({{"seed", 1}, {"faults", {{{"action", "io_error"}, {"error", "eperm"}}}}}),
        AllOf(HasSubstr("faults[0].error"), HasSubstr("enospc"), HasSubstr("eio"), HasSubstr("short_write")));
}

TEST(ScenarioValidation, AScriptedModelNeedsAScript) {
    EXPECT_THAT(rejection({{"seed", 1}, {"score", {{"kind", "scripted"}}}}), HasSubstr("score.script"));
    EXPECT_THAT(rejection({{"seed", 1}, {"score", {{"kind", "scripted"}, {"script", {0.5, "high"}}}}}),
                HasSubstr("score.script"));
}

TEST(ScenarioDraw, SameSeedSameScenario) {
    for (std::uint64_t seed : {0ULL, 1ULL, 2ULL, 42ULL, 1000003ULL, 18446744073709551615ULL}) {
        EXPECT_EQ(draw_scenario(seed).to_json().dump(), draw_scenario(seed).to_json().dump())
            << "seed " << seed;
        EXPECT_EQ(draw_scenario(seed).seed, seed);
    }
}

TEST(ScenarioDraw, DifferentSeedsDrawDifferentScenarios) {
    // The seed field alone would make any two documents differ; compare what was drawn.
    std::set<std::string> drawn;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        auto document = draw_scenario(seed).to_json();
        document.erase("seed");
        drawn.insert(document.dump());
    }
    EXPECT_EQ(drawn.size(), 200U);
}

TEST(ScenarioDraw, DrawnScenariosAreValid) {
    for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
        const auto s = draw_scenario(seed);
        EXPECT_NO_THROW(s.validate()) << "seed " << seed;
        // The swarm promises at least one fault per seed.
        EXPECT_FALSE(s.faults.empty()) << "seed " << seed;
    }
}

}  // namespace
}  // namespace ckpt::sim
