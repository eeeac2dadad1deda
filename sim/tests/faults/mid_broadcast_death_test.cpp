// A rank killed part-way through a broadcast (FaultAim::mid_broadcast): released by the
// collective with its payload, never returned. The survivors reach a collective it cannot join;
// the watchdog turns that into a resume, and without one the run ends hung, never a violation.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/world/simulation.hpp"

namespace ckpt::sim {
namespace {

Scenario three_ranks_with_mid_broadcast_death(std::uint64_t seed, bool watchdog) {
    Scenario s;
    s.seed = seed;
    s.job.ranks = 3;
    s.job.watchdog = watchdog;
    s.trainer.max_steps = 100;
    s.trainer.steps_per_epoch = 100;
    s.trainer.save_strategy = SaveStrategy::steps;
    s.trainer.save_steps = 10;
    s.trainer.save_total_limit = 2;
    s.trainer.resume_rule = ResumeRule::fixed;
    s.callbacks.policy.patience = 100;
    s.callbacks.early_stopping_callbacks = 0;
    s.score.kind = ScoreKind::scripted;
    s.score.script = {0.1, 0.2, 0.3, 0.25, 0.4};
    PlannedFault death;
    death.action = FaultAction::rank_death;
    death.aim = FaultAim::mid_broadcast;
    death.at_step = 20;
    s.faults = {death};
    return s;
}

int mid_broadcast_deaths(const ScenarioResult& result) {
    int deaths = 0;
    for (const auto& line : result.trace) {
        const auto event = nlohmann::json::parse(line);
        deaths += event.at("kind") == "rank_death" && event.value("mid_broadcast", false) ? 1 : 0;
    }
    return deaths;
}

std::string violations_of(const ScenarioResult& result) {
    std::string text;
    for (const auto& v : result.violations) {
        text += std::string(id_of(v.property)) + ": " + v.message + "\n";
    }
    return text;
}

TEST(MidBroadcastDeath, TheWatchdogResumesTheJobAndEveryPropertyHolds) {
    int fired = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto result =
            run_scenario(three_ranks_with_mid_broadcast_death(seed, true), RunOptions{.keep_trace = true});
        ASSERT_TRUE(result.ok()) << "seed " << seed << "\n" << violations_of(result);
        if (mid_broadcast_deaths(result) == 1) {
            ++fired;
            EXPECT_GE(result.stats.hangs, 1U) << "seed " << seed;
            EXPECT_EQ(result.outcome, Outcome::finished) << "seed " << seed << ": " << result.outcome_detail;
        }
    }
    // The chooser lets some rank leave a collective first in most runs of three ranks.
    EXPECT_GE(fired, 10);
}

TEST(MidBroadcastDeath, WithoutAWatchdogTheHangIsExcusedAndTheJobRelaunched) {
    int hung = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto result =
            run_scenario(three_ranks_with_mid_broadcast_death(seed, false), RunOptions{.keep_trace = true});
        ASSERT_TRUE(result.ok()) << "seed " << seed << "\n" << violations_of(result);
        if (mid_broadcast_deaths(result) == 1) {
            // The hang is judged, then the operator kills the job and launches it again.
            hung += result.stats.hangs > result.stats.watchdog_restarts ? 1 : 0;
        }
    }
    EXPECT_GE(hung, 1);
}

}  // namespace
}  // namespace ckpt::sim
