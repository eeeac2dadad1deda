// TrainingArguments.save_on_each_node on two nodes sharing one output_dir: every node's local rank 0
// writes the model, the optimizer and trainer_state.json and rotates, so another node can complete
// a checkpoint that rank 0, killed after its evaluation, never began; without it only rank 0 writes
// them. The nodes split the ranks evenly, as the scenario's validation requires.
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/scenario/scenario.hpp"
#include "sim/tests/support/scenario_runs.hpp"

namespace ckpt::sim {
namespace {

using testing::describe;
using testing::run;

// 40 steps on 4 ranks over 2 nodes, an evaluation and a save every 10 steps (scores rising, so each
// saves), and rank 0 alone killed right after its second evaluation, at step 20.
Scenario rank_zero_killed_after_evaluating(bool save_on_each_node) {
    auto s = testing::rising_scores_with_a_kill(4, CrashPoint::after_evaluation, 2, 0);
    s.seed = 3;
    s.job.nodes = 2;
    s.trainer.save_on_each_node = save_on_each_node;
    return s;
}

// Node 1's local rank 0 (rank 2) writes checkpoint-20 whole, trainer_state.json last, while rank 0
// is dead; without save_on_each_node checkpoint-20 has no trainer_state.json and the resume takes
// checkpoint-10.
TEST(SaveOnEachNode, AnotherNodeCompletesTheCheckpointRankZeroNeverBegan) {
    for (const bool save_on_each_node : {true, false}) {
        const auto result = run(rank_zero_killed_after_evaluating(save_on_each_node));
        EXPECT_TRUE(result.ok()) << describe(result);
        EXPECT_EQ(testing::first_resume(result), save_on_each_node ? "checkpoint-20" : "checkpoint-10")
            << save_on_each_node << ": " << describe(result);
    }
}

TEST(SaveOnEachNode, NodesMustSplitTheRanksEvenly) {
    Scenario s;
    s.job.ranks = 3;
    s.job.nodes = 2;
    try {
        s.validate();
        FAIL() << "3 ranks on 2 nodes were accepted";
    } catch (const ScenarioError& error) {
        EXPECT_NE(std::string(error.what()).find("nodes"), std::string::npos) << error.what();
    }
    s.job.ranks = 4;
    EXPECT_NO_THROW(s.validate());
}

}  // namespace
}  // namespace ckpt::sim
