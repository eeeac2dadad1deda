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
    auto s = testing::rising_scores_with_a_kill(2, CrashPoint::step_end, 13);
    s.trainer.save_total_limit = 2;
    s.trainer.save_only_model = true;
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
