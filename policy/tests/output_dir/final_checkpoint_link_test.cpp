// The rules policy/output_dir exports for `inspect`: which checkpoints a link update prunes,
// and which names are leftover temp files.
#include "policy/output_dir/final_checkpoint_link.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/output_dir/checkpoint_layout.hpp"

namespace ckpt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<CheckpointEntry> steps(std::initializer_list<std::int64_t> list) {
    std::vector<CheckpointEntry> out;
    for (const auto step : list) {
        out.push_back({checkpoint_dir_name(step), step});
    }
    return out;
}

std::vector<std::string> names(const std::vector<CheckpointEntry>& entries) {
    std::vector<std::string> out;
    for (const auto& entry : entries) {
        out.push_back(entry.name);
    }
    return out;
}

TEST(CheckpointsPrunedByLink, KeepsTheNewestOlderOnesBeyondTheLimitAndNeverANewerOne) {
    EXPECT_THAT(names(checkpoints_pruned_by_link(steps({10, 20, 30, 40}), 30, 1)),
                ElementsAre("checkpoint-10", "checkpoint-20"));
    EXPECT_THAT(names(checkpoints_pruned_by_link(steps({10, 20, 30, 40}), 30, 2)),
                ElementsAre("checkpoint-10"));
    EXPECT_THAT(checkpoints_pruned_by_link(steps({10, 20, 30, 40}), 30, 3), IsEmpty());
    EXPECT_THAT(checkpoints_pruned_by_link(steps({30, 40}), 30, 1), IsEmpty());
}

TEST(LeftoverTempName, TheSidecarTempsAndTheLinkTemp) {
    EXPECT_TRUE(is_leftover_temp_name(".checkpoint_eval_state.json.tmp-sim-3"));
    EXPECT_TRUE(is_leftover_temp_name(".final_checkpoint.tmp"));
    EXPECT_FALSE(is_leftover_temp_name(".final_checkpoint.tmp-other"));
    EXPECT_FALSE(is_leftover_temp_name("checkpoint_eval_state.json"));
    EXPECT_FALSE(is_leftover_temp_name("final_checkpoint"));
}

}  // namespace
}  // namespace ckpt
