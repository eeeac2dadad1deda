// Hand-built scenarios whose ends are worked out on paper from the seed's rules, so the
// simulator is checked against something other than itself.
//
// Every scenario here shares one shape: 100 steps in one epoch, a save event every 10 steps
// (DefaultFlowCallback), which the trigger callback turns into an evaluation at steps 10, 20,
// ..., 100. An evaluation saves a checkpoint only when its score is strictly better.
#include "sim/world/simulation.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "sim/checks/property.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/tests/support/scenario_runs.hpp"
#include "sim/world/operator_relaunch.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;
using testing::describe;
using ::testing::ElementsAre;
using testing::events;
using testing::run;

Scenario base_scenario(std::vector<double> script) {
    Scenario s;
    s.seed = 7;
    s.job.ranks = 1;
    s.trainer.max_steps = 100;
    s.trainer.steps_per_epoch = 100;
    s.trainer.save_strategy = SaveStrategy::steps;
    s.trainer.save_steps = 10;
    s.callbacks.policy.patience = 2;
    s.callbacks.policy.tie_policy = TiePolicy::reset;
    s.callbacks.policy.patience_start_step = 0;
    s.trainer.save_total_limit = 1;
    s.trainer.resume_rule = ResumeRule::fixed;
    s.callbacks.early_stopping_callbacks = 0;
    s.score.kind = ScoreKind::scripted;
    s.score.script = std::move(script);
    s.score.noisy_replay = false;
    s.score.external_baseline = false;
    s.job.watchdog = true;
    return s;
}

// A constant score on `ranks` ranks with `faults` planned: every evaluation after the first is a
// tie, so only the faults decide how the run goes.
Scenario constant_score(int ranks, std::vector<PlannedFault> faults) {
    auto s = base_scenario({0.5});
    s.job.ranks = ranks;
    s.faults = std::move(faults);
    return s;
}

PlannedFault crash_at(CrashPoint point, std::uint32_t occurrence) {
    PlannedFault fault;
    fault.action = FaultAction::crash;
    fault.point = point;
    fault.occurrence = occurrence;
    fault.scope = CrashScope::job;
    fault.kind = CrashKind::process_kill;
    return fault;
}

PlannedFault at_step(FaultAction action, std::int64_t step, int rank = 0) {
    PlannedFault fault;
    fault.action = action;
    fault.at_step = step;
    fault.rank = rank;
    return fault;
}

template <typename T>
std::vector<T> field(const std::vector<json>& list, const char* name) {
    std::vector<T> out;
    for (const auto& event : list) {
        out.push_back(event.at(name).get<T>());
    }
    return out;
}

std::vector<json> in_incarnation(const std::vector<json>& list, int incarnation) {
    std::vector<json> out;
    std::copy_if(list.begin(), list.end(), std::back_inserter(out),
                 [&](const json& event) { return event.at("inc") == incarnation; });
    return out;
}

// Every property held and the run reached its end; otherwise what happened instead.
::testing::AssertionResult finished_cleanly(const ScenarioResult& result) {
    if (result.ok() && result.outcome == Outcome::finished) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << describe(result);
}

// A constant score: every evaluation after the first is a tie, whatever order the script is read in.
TEST(Simulation, CountedTiesStopAtPatience) {
    auto s = base_scenario({0.5});
    s.callbacks.policy.tie_policy = TiePolicy::count;
    s.callbacks.policy.patience = 3;
    const auto result = run(s);
    ASSERT_TRUE(finished_cleanly(result));
    // 10: initial (saved); 20, 30: tie_counted (1, 2); 40: the third tie reaches patience 3.
    const auto evaluations = events(result, "evaluation");
    EXPECT_THAT(field<std::string>(evaluations, "reason"),
                ElementsAre("initial", "tie_counted", "tie_counted", "patience_exhausted"));
    EXPECT_THAT(field<std::int64_t>(evaluations, "step"), ElementsAre(10, 20, 30, 40));
    // No optimizer step after the stop, and only the initial score was worth a checkpoint.
    EXPECT_EQ(result.stats.steps, 40U);
    EXPECT_EQ(result.stats.evaluations, 4U);
    EXPECT_EQ(result.stats.checkpoints, 1U);
}

// The script is the score of the n-th evaluation (scenario.hpp: "the score of the n-th
// evaluation step (cycled)"), so a script is a score sequence a user can reason about.
TEST(Simulation, ScriptedScoresStopByPatienceAtAKnownStep) {
    const auto result = run(base_scenario({0.5, 0.6, 0.55, 0.4, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99}));
    ASSERT_TRUE(finished_cleanly(result));
    // 10: 0.5 initial; 20: 0.6 improved; 30: 0.55 lower (streak 1); 40: 0.4 lower (streak 2 =
    // patience): stop. The later, better scores are never seen.
    const auto evaluations = events(result, "evaluation");
    EXPECT_THAT(field<double>(evaluations, "score"), ElementsAre(0.5, 0.6, 0.55, 0.4));
    EXPECT_THAT(field<std::string>(evaluations, "reason"),
                ElementsAre("initial", "improved", "lower", "patience_exhausted"));
    EXPECT_THAT(field<int>(evaluations, "streak"), ElementsAre(0, 0, 1, 2));
    EXPECT_EQ(result.stats.steps, 40U);
    EXPECT_EQ(result.stats.checkpoints, 2U);
    // The link last points at the best, checkpoint-20.
    const auto links = events(result, "link");
    ASSERT_FALSE(links.empty());
    EXPECT_THAT(links.back().at("target").get<std::string>(), ::testing::EndsWith("checkpoint-20"));
}

TEST(Simulation, CrashAfterEvaluationResumesFromTheDurableState) {
    auto s = constant_score(1, {crash_at(CrashPoint::after_evaluation, 3)});
    s.callbacks.policy.tie_policy = TiePolicy::count;
    s.callbacks.policy.patience = 5;
    const auto result = run(s);
    ASSERT_TRUE(finished_cleanly(result));
    EXPECT_EQ(result.stats.incarnations, 2U);
    EXPECT_EQ(result.stats.resumes, 1U);

    // The crash hits the third evaluation (step 30) before its tie reaches the sidecar.
    const auto before = in_incarnation(events(result, "evaluation"), 0);
    EXPECT_THAT(field<std::int64_t>(before, "step"), ElementsAre(10, 20, 30));
    // Only the initial score was saved, so the job resumes from checkpoint-10.
    const auto resumes = events(result, "resume");
    ASSERT_EQ(resumes.size(), 1U);
    EXPECT_EQ(resumes[0].at("checkpoint"), "checkpoint-10");
    // Durable before the crash: the sidecar written after step 20 (best 0.5, streak 1, last
    // evaluated step 20). The tie at 30 was never persisted. Retraining from 10 skips the
    // replayed 20, which the sidecar already counted, and evaluates 30, 40, 50, 60: streaks 2,
    // 3, 4, 5, and 5 is the patience. Had the sidecar been ignored it would evaluate 20 at
    // streak 1; had 20 been counted again, it would stop at 50; had the lost tie been kept, it
    // would skip 30 too.
    const auto again = in_incarnation(events(result, "evaluation"), 1);
    EXPECT_THAT(field<std::int64_t>(again, "step"), ElementsAre(30, 40, 50, 60));
    EXPECT_THAT(field<int>(again, "streak"), ElementsAre(2, 3, 4, 5));
    EXPECT_THAT(field<std::string>(again, "reason"),
                ElementsAre("tie_counted", "tie_counted", "tie_counted", "patience_exhausted"));
    // 30 steps before the crash, then 11..60.
    EXPECT_EQ(result.stats.steps, 80U);
}

// Without a watchdog the hang is judged (P6 excuses it: it waits on the dead rank), then the
// operator kills the hung job and launches it again, and the run trains to its end.
TEST(Simulation, RankDeathWithoutWatchdogIsAHangNotAViolation) {
    auto s = constant_score(2, {at_step(FaultAction::rank_death, 15, 1)});
    s.job.watchdog = false;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    EXPECT_EQ(result.stats.hangs, 1U);
    EXPECT_EQ(result.stats.watchdog_restarts, 0U);
    EXPECT_EQ(result.stats.incarnations, 2U);
    EXPECT_EQ(result.stats.trained_to_end, 1U);
    const auto deaths = events(result, "rank_death");
    ASSERT_EQ(deaths.size(), 1U);
    EXPECT_EQ(deaths[0].at("rank"), 1);
    EXPECT_EQ(events(result, "hang").size(), 1U);
    const auto relaunches = events(result, "relaunch");
    ASSERT_EQ(relaunches.size(), 1U);
    EXPECT_EQ(relaunches[0].at("remedy"), "kill_hung_job");
    EXPECT_EQ(result.stats.relaunches.at("kill_hung_job"), 1U);
}

TEST(Simulation, RankDeathWithWatchdogResumesAndFinishes) {
    auto s = constant_score(2, {at_step(FaultAction::rank_death, 15, 1)});
    s.job.watchdog = true;
    const auto result = run(s);
    ASSERT_TRUE(finished_cleanly(result));
    EXPECT_EQ(result.stats.hangs, 1U);
    EXPECT_EQ(result.stats.resumes, 1U);
    EXPECT_EQ(events(result, "watchdog").size(), 1U);
    // Rank 0 waits alone at step 20's decision; the watchdog kills the job, which resumes from
    // the only checkpoint and trains (ties reset, so no stop) to max_steps.
    const auto resumes = events(result, "resume");
    ASSERT_EQ(resumes.size(), 1U);
    EXPECT_EQ(resumes[0].at("checkpoint"), "checkpoint-10");
    const auto last = in_incarnation(events(result, "evaluation"), 1);
    ASSERT_FALSE(last.empty());
    EXPECT_EQ(last.back().at("step"), 100);
}

TEST(Simulation, SidecarRenameErrorFailsEveryRankAndTheJobRestarts) {
    PlannedFault io;
    io.action = FaultAction::io_error;
    io.target = IoTarget::sidecar_rename;
    io.error = FaultKind::eio;
    io.occurrence = 1;
    const auto result = run(constant_score(3, {io}));
    ASSERT_TRUE(finished_cleanly(result));
    EXPECT_TRUE(result.held(Property::P6));
    EXPECT_EQ(events(result, "io_error").size(), 1U);
    // The first rename is the commit of checkpoint-10; its error is shared by every rank.
    const auto failures = events(result, "job_failed");
    ASSERT_EQ(failures.size(), 1U);
    EXPECT_THAT(failures[0].at("error").get<std::string>(),
                ::testing::HasSubstr("saved checkpoint publication"));
    EXPECT_EQ(result.stats.incarnations, 2U);
    // The restarted job trains to the end.
    const auto last = in_incarnation(events(result, "evaluation"), 1);
    ASSERT_FALSE(last.empty());
    EXPECT_EQ(last.back().at("step"), 100);
}

// The seed refuses to reset patience silently: the resumed job fails on the sidecar (P12 demands
// it). The operator deletes the file the error names and launches again; the run trains on.
TEST(Simulation, CorruptSidecarFailsTheResumeUntilTheOperatorDeletesIt) {
    const auto result = run(constant_score(2, {at_step(FaultAction::corrupt_sidecar, 25)}));
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    EXPECT_EQ(events(result, "corrupt").size(), 1U);
    const auto failures = events(result, "job_failed");
    ASSERT_EQ(failures.size(), 1U) << describe(result);
    EXPECT_THAT(failures[0].at("error").get<std::string>(),
                ::testing::HasSubstr("Cannot load checkpoint evaluation metadata"));
    const auto relaunches = events(result, "relaunch");
    ASSERT_EQ(relaunches.size(), 1U);
    EXPECT_EQ(relaunches[0].at("remedy"), "delete_damaged_sidecar");
    EXPECT_EQ(relaunches[0].at("path"), "/run/output/checkpoint_eval_state.json");
}

// The relaunch budget ends a scenario whose every restart fails: the failure is then its outcome.
TEST(Simulation, CorruptSidecarEndsAsAnExplainedFailureOnceTheOperatorGivesUp) {
    std::vector<PlannedFault> corruptions;
    for (const std::int64_t step : {25, 35, 45, 55, 65}) {
        corruptions.push_back(at_step(FaultAction::corrupt_sidecar, step));
    }
    const auto result = run(constant_score(2, corruptions));
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::failed_explained) << describe(result);
    EXPECT_EQ(result.stats.trained_to_end, 0U);
    EXPECT_EQ(events(result, "relaunch").size(), static_cast<std::size_t>(kMaxRelaunches));
    EXPECT_THAT(result.outcome_detail, ::testing::HasSubstr("Cannot load checkpoint evaluation metadata"));
}

// Several EarlyStoppingCallbacks restored by a Trainer whose refresh appends: the callback refuses
// at on_train_begin on every rank, before any step; the job is launched again with the fix the
// message names and trains to the end, every property held (P14 judged the refusal due).
TEST(Simulation, RestoringAppendedDuplicateStatesIsRefusedBeforeAnyStep) {
    auto s = constant_score(2, {});
    s.callbacks.early_stopping_callbacks = 2;
    s.trainer.restore_callback_states_from_checkpoint = true;
    s.trainer.stateful_callbacks_refresh = StatefulCallbacksRefresh::append;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    const auto fixes = events(result, "restart_with_fix");
    ASSERT_EQ(fixes.size(), 1U) << describe(result);
    EXPECT_EQ(fixes[0].at("fix"), "restore_callback_states_from_checkpoint=false");
    EXPECT_EQ(result.stats.refusals_fixed, 1U);
    EXPECT_EQ(result.stats.incarnations, 2U);
    EXPECT_EQ(in_incarnation(events(result, "evaluation"), 0).size(), 0U);
    s.trainer.stateful_callbacks_refresh = StatefulCallbacksRefresh::replace;
    const auto replacing = run(s);
    EXPECT_EQ(replacing.outcome, Outcome::finished);
    EXPECT_EQ(replacing.stats.refusals_fixed, 0U);
}

// Transformers' own best (issue 11 row 7): with metric_for_best_model the trainer tracks it in
// trainer_state.json, rotation keeps best_model_checkpoint, and load_best_model_at_end loads it.
TEST(Simulation, TrainerTracksItsOwnBestModelCheckpoint) {
    auto s = base_scenario({0.5, 0.7, 0.6, 0.65, 0.55});
    s.trainer.save_total_limit = 2;
    s.trainer.metric_for_best_model = "score";
    s.trainer.load_best_model_at_end = true;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    const auto loads = events(result, "best_model_loading");
    ASSERT_EQ(loads.size(), 1U);
    EXPECT_TRUE(loads[0].at("found").get<bool>());
}

// save_strategy="best" (the callback's refusal off, so the run goes on): v4.5x records no
// best_global_step under it, so load_best_model_at_end finds no best_model_checkpoint and keeps
// the last model; v5 (PR #44583) records it, names the checkpoint and loads it.
TEST(Simulation, SaveStrategyBestNamesTheBestCheckpointOnlyFromV5) {
    const mutants::MutantScope accepted(mutants::Mutant::save_strategy_best_accepted);
    auto s = base_scenario({0.5, 0.7, 0.6, 0.65, 0.55});
    s.trainer.save_strategy = SaveStrategy::best;
    s.trainer.eval_strategy = EvalStrategy::steps;  // the evaluations "best" saves after
    s.trainer.eval_steps = 10;
    s.trainer.save_total_limit = 3;
    s.trainer.metric_for_best_model = "score";
    s.trainer.load_best_model_at_end = true;
    EXPECT_TRUE(events(run(s), "best_model_loading").empty());
    s.trainer.transformers_release = TransformersRelease::v5;
    const auto v5 = run(s);
    const auto loads = events(v5, "best_model_loading");
    ASSERT_EQ(loads.size(), 1U) << describe(v5);
    EXPECT_TRUE(loads[0].at("found").get<bool>());
    EXPECT_EQ(loads[0].at("step").get<std::int64_t>(), 10) << describe(v5);  // its only new best
}

// save_total_limit=1 beside a Trainer-tracked best, and save_strategy="best", are refused at
// on_train_begin before any step, naming the setting; the relaunch applies the fix each names.
TEST(Simulation, TrainerBestConfigurationsNoCallbackSurvivesAreRefused) {
    auto s = base_scenario({0.5});
    s.trainer.metric_for_best_model = "score";
    s.trainer.save_total_limit = 1;
    auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    auto fixes = events(result, "restart_with_fix");
    ASSERT_EQ(fixes.size(), 1U) << describe(result);
    EXPECT_EQ(fixes[0].at("fix"), "save_total_limit=2");
    s.trainer.metric_for_best_model.clear();
    s.trainer.save_strategy = SaveStrategy::best;
    result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    fixes = events(result, "restart_with_fix");
    ASSERT_EQ(fixes.size(), 1U) << describe(result);
    EXPECT_EQ(fixes[0].at("fix"), "save_strategy=steps");
}

// Transformers' get_last_checkpoint takes the newest checkpoint-N without checking it, so a
// crash between truncating trainer_state.json and writing it makes the resume fail (#35782).
// A known upstream bug, not ours (#35782): the resume fails on the torn checkpoint; the operator
// deletes it, as the workaround says, and the job starts over and trains to its end.
TEST(Simulation, TransformersResumeOfAnIncompleteCheckpointFails) {
    auto s = constant_score(1, {crash_at(CrashPoint::inside_trainer_state_write, 1)});
    s.trainer.resume_rule = ResumeRule::transformers;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    const auto resumes = events(result, "resume");
    ASSERT_EQ(resumes.size(), 1U);
    EXPECT_EQ(resumes[0].at("checkpoint"), "checkpoint-10");
    EXPECT_EQ(resumes[0].at("complete"), false);
    const auto relaunches = events(result, "relaunch");
    ASSERT_EQ(relaunches.size(), 1U);
    EXPECT_EQ(relaunches[0].at("remedy"), "delete_incomplete_checkpoint");
    EXPECT_EQ(relaunches[0].at("path"), "/run/output/checkpoint-10");
    const auto last = in_incarnation(events(result, "evaluation"), 2);
    ASSERT_FALSE(last.empty()) << describe(result);
    EXPECT_EQ(last.front().at("reason"), "initial");
    EXPECT_EQ(last.back().at("step"), 100);
}

TEST(Simulation, FixedResumeRuleSurvivesTheSameCrash) {
    auto s = constant_score(1, {crash_at(CrashPoint::inside_trainer_state_write, 1)});
    s.trainer.resume_rule = ResumeRule::fixed;
    const auto result = run(s);
    ASSERT_TRUE(finished_cleanly(result));
    // No complete checkpoint exists, so the job starts over from step 0 and trains to 100.
    EXPECT_EQ(result.stats.resumes, 0U);
    EXPECT_EQ(result.stats.incarnations, 2U);
    const auto last = in_incarnation(events(result, "evaluation"), 1);
    ASSERT_THAT(field<std::int64_t>(last, "step"), ElementsAre(10, 20, 30, 40, 50, 60, 70, 80, 90, 100));
    EXPECT_EQ(last.front().at("reason"), "initial");
}

// The oracle can fail: a tie that replaces the best breaks the seed's rules, and P11 says so.
TEST(Simulation, TieReplacingTheBestViolatesP11) {
    const auto s = base_scenario({0.5});
    const auto clean = run(s);
    ASSERT_TRUE(clean.ok()) << describe(clean);
    ScenarioResult mutated;
    {
        mutants::MutantScope scope(mutants::Mutant::tie_replaces_best);
        mutated = run(s);
    }
    EXPECT_FALSE(mutated.held(Property::P11)) << describe(mutated);
    // The same scenario without the mutant still holds: the scope ended with its block.
    EXPECT_EQ(run(s).trace_hash, clean.trace_hash);
}

}  // namespace
}  // namespace ckpt::sim
