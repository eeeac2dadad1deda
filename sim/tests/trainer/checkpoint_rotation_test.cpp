// Transformers' _sorted_checkpoints / _rotate_checkpoints as the simulated trainer applies them:
// mtime order with its step-order fallback under a 1 s span, ties by path, the protected best
// bubbled next to the newest, and save_total_limit=1 keeping two beside a best that is not newest.
#include "sim/trainer/checkpoint_rotation.hpp"

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

std::vector<transformers::Checkpoint> steps(std::initializer_list<std::int64_t> list) {
    std::vector<transformers::Checkpoint> out;
    for (const auto step : list) {
        out.push_back({"checkpoint-" + std::to_string(step), step});
    }
    return out;
}

std::vector<std::int64_t> steps_of(const std::vector<transformers::Checkpoint>& entries) {
    std::vector<std::int64_t> out;
    for (const auto& entry : entries) {
        out.push_back(entry.step);
    }
    return out;
}

TEST(CheckpointRotation, MtimeOrderPutsARewrittenOlderStepLast) {
    CheckpointMtimes mtimes;
    mtimes.touch("checkpoint-50", 90'000);
    mtimes.touch("checkpoint-60", 10'000);
    const auto sorted = sorted_checkpoints(steps({50, 60}), RotationOrder::mtime, mtimes);
    EXPECT_EQ(steps_of(sorted), (std::vector<std::int64_t>{60, 50}));
    EXPECT_EQ(steps_of(sorted_checkpoints(steps({50, 60}), RotationOrder::step, mtimes)),
              (std::vector<std::int64_t>{50, 60}));
    // The stale checkpoint-60 is the one rotation deletes (docs/findings.md, finding 2, under use_mtime).
    EXPECT_EQ(steps_of(checkpoints_to_rotate(sorted, 1, std::nullopt)), (std::vector<std::int64_t>{60}));
}

TEST(CheckpointRotation, MtimesSpanningLessThanOneSecondFallBackToStepOrder) {
    CheckpointMtimes mtimes;
    mtimes.touch("checkpoint-50", 10'999);
    mtimes.touch("checkpoint-60", 10'000);
    EXPECT_EQ(steps_of(sorted_checkpoints(steps({50, 60}), RotationOrder::mtime, mtimes)),
              (std::vector<std::int64_t>{50, 60}));
    mtimes.touch("checkpoint-50", 11'000);
    EXPECT_EQ(steps_of(sorted_checkpoints(steps({50, 60}), RotationOrder::mtime, mtimes)),
              (std::vector<std::int64_t>{60, 50}));
}

TEST(CheckpointRotation, EqualMtimesSortByPathAsPythonSortsTuples) {
    CheckpointMtimes mtimes;
    mtimes.touch("checkpoint-100", 5'000);
    mtimes.touch("checkpoint-50", 5'000);
    mtimes.touch("checkpoint-7", 1'000);
    // "checkpoint-100" < "checkpoint-50" as strings.
    EXPECT_EQ(steps_of(sorted_checkpoints(steps({7, 50, 100}), RotationOrder::mtime, mtimes)),
              (std::vector<std::int64_t>{7, 100, 50}));
}

TEST(CheckpointRotation, TheProtectedBestIsBubbledNextToTheNewest) {
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30, 40}), 2, 10)),
              (std::vector<std::int64_t>{20, 30}));
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30, 40}), 3, 10)),
              (std::vector<std::int64_t>{20}));
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30}), 2, std::nullopt)),
              (std::vector<std::int64_t>{10}));
    EXPECT_TRUE(checkpoints_to_rotate(steps({10, 20}), 2, 10).empty());
}

TEST(CheckpointRotation, LimitOneKeepsTwoBesideABestThatIsNotTheNewest) {
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30}), 1, 10)), (std::vector<std::int64_t>{20}));
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30}), 1, 30)),
              (std::vector<std::int64_t>{10, 20}));
    // A best that no longer exists still raises the limit, as Transformers compares names only.
    EXPECT_EQ(steps_of(checkpoints_to_rotate(steps({10, 20, 30}), 1, 5)), (std::vector<std::int64_t>{10}));
}

}  // namespace
}  // namespace ckpt::sim
