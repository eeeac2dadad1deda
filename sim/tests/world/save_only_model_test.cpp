// TrainingArguments.save_only_model in the simulated trainer: checkpoints without optimizer,
// scheduler or RNG files, which Transformers resumes from all the same. The callback must take such a
// checkpoint for complete (trainer_state.json names its step), link it and resume from it; a
// completeness test that wants optimizer.pt never links one (mutant complete_checkpoint_needs_optimizer).
#include <vector>

#include <gtest/gtest.h>

#include "policy/base/mutants.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/tests/support/scenario_runs.hpp"

namespace ckpt::sim {
namespace {

using testing::describe;
using testing::events;
using testing::run;

// 40 steps on 2 ranks, an evaluation every 10 (scores rising, so each saves), the job killed once at
// the third step end after checkpoint-10: the resume must start from checkpoint-10.
Scenario model_only_checkpoints() {
    Scenario s;
    s.seed = 5;
    s.job.ranks = 2;
    s.trainer.max_steps = 40;
    s.trainer.steps_per_epoch = 40;
    s.trainer.save_steps = 10;
    s.trainer.save_total_limit = 2;
    s.trainer.save_only_model = true;
    s.callbacks.policy.patience = 3;
    s.callbacks.policy.patience_start_step = 0;
    s.score.kind = ScoreKind::scripted;
    s.score.script = {0.1, 0.2, 0.3, 0.4};
    PlannedFault crash;
    crash.action = FaultAction::crash;
    crash.point = CrashPoint::step_end;
    crash.occurrence = 13;
    crash.scope = CrashScope::job;
    crash.kind = CrashKind::process_kill;
    s.faults.push_back(crash);
    return s;
}

TEST(SaveOnlyModel, CheckpointsWithoutOptimizerOrRngAreLinkedAndResumedFrom) {
    const auto result = run(model_only_checkpoints());
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    const auto resumes = events(result, "resume");
    ASSERT_EQ(resumes.size(), 1U) << describe(result);
    EXPECT_EQ(resumes[0].at("checkpoint"), "checkpoint-10");
    EXPECT_FALSE(events(result, "link").empty()) << describe(result);
}

TEST(SaveOnlyModel, ACompletenessTestThatWantsTheOptimizerIsCaught) {
    const mutants::MutantScope wants_optimizer(mutants::Mutant::complete_checkpoint_needs_optimizer);
    const auto result = run(model_only_checkpoints());
    EXPECT_FALSE(result.ok()) << describe(result);
}

}  // namespace
}  // namespace ckpt::sim
