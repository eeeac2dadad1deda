// known_history: which steps a resume must not count again. The ledger says which evaluation
// wrote the restored sidecar, so a callback whose sidecar names no last_evaluated_step (the
// original's version 1 format) is not excused a replayed step; only a declared upgrade across
// the resume is (finding 18).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/lineage.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

// A ledger with one evaluation: a lower score at step 1 after an external baseline, made by
// incarnation 0, and the visible sidecar holding its state in `sidecar_members` (besides it).
struct OneEvaluation {
    SimFileSystem fs;
    Ledger ledger;

    explicit OneEvaluation(const std::string& sidecar_members) {
        CheckpointEvaluationState after;
        after.best_score = 0.5;
        after.best_step = 0;
        after.best_is_external = true;
        after.lower_score_streak = 1;
        after.evaluation_count = 1;
        ledger.evaluations.push_back({kRootNode, 1, 0.25, after, 0});
        fs.mkdir("/run");
        fs.mkdir(kOutputDir);
        fs.write_file(join_path(kOutputDir, kSidecarName),
                      R"({"checkpoint_eval_state": {"patience": 3, "state": {"best_is_external": true,)"
                      R"( "best_score": 0.5, "best_step": 0, "evaluation_count": 1, "lower_score_streak": 1,)"
                      R"( "stop_requested": false}, "tie_policy": "reset", "version": 1}, )" +
                          sidecar_members + "}");
    }

    std::vector<std::int64_t> counted(int incarnation, std::optional<int> upgrade_incarnation) const {
        // A restart from scratch that adopted the sidecar (node 0).
        return known_history(fs, ledger, std::nullopt, 0, incarnation, upgrade_incarnation).counted_steps;
    }
};

TEST(KnownHistory, ASidecarNamingItsStepIsKnownToHaveCountedIt) {
    const OneEvaluation run(R"("last_evaluated_step": 1, "version": 2)");
    EXPECT_EQ(run.counted(1, std::nullopt), std::vector<std::int64_t>{1});
}

TEST(KnownHistory, ASidecarThatNamesNoStepIsNotExcusedWithoutAnUpgrade) {
    // The original's format: the ledger knows the step was counted even if the bytes do not say.
    EXPECT_EQ(OneEvaluation(R"("version": 1)").counted(1, std::nullopt), std::vector<std::int64_t>{1});
    EXPECT_EQ(OneEvaluation(R"("last_evaluated_step": null, "version": 2)").counted(1, std::nullopt),
              std::vector<std::int64_t>{1});
}

TEST(KnownHistory, OnlyADeclaredUpgradeAcrossTheResumeCountsTheWindowAgain) {
    const OneEvaluation seed_format(R"("version": 1)");
    EXPECT_TRUE(seed_format.counted(1, 1).empty());  // written before the upgrade, restored after
    // A rewrite after the upgrade that could not know the step keeps the exception.
    EXPECT_TRUE(OneEvaluation(R"("last_evaluated_step": null, "version": 2)").counted(2, 1).empty());
    // Restored by an incarnation still before the upgrade: no exception.
    EXPECT_EQ(seed_format.counted(0, 1), std::vector<std::int64_t>{1});
    // A sidecar naming its step never needs the exception.
    EXPECT_EQ(OneEvaluation(R"("last_evaluated_step": 1, "version": 2)").counted(1, 1),
              std::vector<std::int64_t>{1});
}

}  // namespace
}  // namespace ckpt::sim
