// Transformers' checkpoint names and listings as the simulated trainer restates them, over the
// simulated disk: get_last_checkpoint's strict name match, its directories-only rule and its
// blindness to what a checkpoint holds; _sorted_checkpoints' looser step regex.
#include "sim/trainer/transformers_checkpoints.hpp"

#include <gtest/gtest.h>

#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim::transformers {
namespace {

class TransformersCheckpoints : public ::testing::Test {
  protected:
    TransformersCheckpoints() { fs_.mkdir("/out"); }
    void dir(const std::string& name) { fs_.mkdir("/out/" + name); }
    void file(const std::string& name) { fs_.write_file("/out/" + name, "x"); }

    SimFileSystem fs_;
};

TEST(TransformersCheckpointNames, FolderAndStepFollowTheRegex) {
    EXPECT_EQ(checkpoint_folder(40), "checkpoint-40");
    EXPECT_EQ(checkpoint_path("/out", 7), "/out/checkpoint-7");
    EXPECT_EQ(checkpoint_step("checkpoint-40"), 40);
    EXPECT_EQ(checkpoint_step("checkpoint-007"), 7);
    for (const char* name : {"checkpoint-", "checkpoint-4a", "checkpoint--4", "xcheckpoint-4", "checkpoint_4",
                             "checkpoint-99999999999999999999"}) {
        EXPECT_EQ(checkpoint_step(name), std::nullopt) << name;
    }
}

TEST_F(TransformersCheckpoints, LastCheckpointIsTheLargestStepDirectoryWhateverItHolds) {
    EXPECT_EQ(get_last_checkpoint(fs_, "/out"), std::nullopt);
    dir("checkpoint-9");
    dir("checkpoint-10");   // empty: a save that crashed before writing anything
    file("checkpoint-20");  // a file, not a directory
    dir("checkpoint-30x");
    const auto last = get_last_checkpoint(fs_, "/out");
    ASSERT_TRUE(last.has_value());
    EXPECT_EQ(last->name, "checkpoint-10");
    EXPECT_EQ(last->step, 10);
}

TEST_F(TransformersCheckpoints, LastCheckpointFollowsALinkToADirectory) {
    dir("checkpoint-5");
    fs_.symlink("checkpoint-5", "/out/checkpoint-8");
    ASSERT_TRUE(get_last_checkpoint(fs_, "/out").has_value());
    EXPECT_EQ(get_last_checkpoint(fs_, "/out")->step, 8);
}

TEST_F(TransformersCheckpoints, SortedByStepUsesTheLooserRegexAndBreaksTiesByName) {
    dir("checkpoint-12");
    dir("checkpoint-3");
    dir("checkpoint-12abc");  // .*checkpoint-([0-9]+) matches it as step 12
    dir("checkpoint-x");      // in the glob, but the regex finds no step
    dir("final");
    file("checkpoint-1");
    const auto sorted = checkpoints_by_step(fs_, "/out");
    ASSERT_EQ(sorted.size(), 3U);
    EXPECT_EQ(sorted[0].name, "checkpoint-3");
    EXPECT_EQ(sorted[1].name, "checkpoint-12");
    EXPECT_EQ(sorted[2].name, "checkpoint-12abc");
    EXPECT_EQ(sorted[2].step, 12);
    EXPECT_TRUE(checkpoints_by_step(fs_, "/missing").empty());
}

}  // namespace
}  // namespace ckpt::sim::transformers
