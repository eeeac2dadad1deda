// The world's state that events drive: the save window (which outlives an incarnation, while
// "inside on_save" does not) and the virtual clock (rank 0's work only).
#include <gtest/gtest.h>

#include "sim/events/save_window.hpp"
#include "sim/events/virtual_clock.hpp"

namespace ckpt::sim {
namespace {

TEST(SaveWindowTest, OpensAtRotationAndClosesAtTheCommitOrTheNextTrainBegin) {
    SaveWindow window;
    const CheckpointEvaluationState state;
    window.on(RotationStarted{});
    EXPECT_TRUE(window.open());
    window.on(SaveCallbackReturned{});
    EXPECT_FALSE(window.open());
    window.on(RotationStarted{});
    window.on(IncarnationBegan{1, 2, 10});  // a crash inside the window leaves it open
    EXPECT_TRUE(window.open());
    window.on(TrainBegan{state, true});
    EXPECT_FALSE(window.open());
}

TEST(SaveWindowTest, InsideOnSaveBelongsToRankZeroAndToOneIncarnation) {
    SaveWindow window;
    window.on(SaveCallbackStarted{0});
    EXPECT_TRUE(window.in_on_save());
    window.on(SaveCallbackStarted{1});  // another rank entering on_save lowers it, as it always has
    EXPECT_FALSE(window.in_on_save());
    window.on(SaveCallbackStarted{0});
    window.on(IncarnationBegan{1, 2, std::nullopt});
    EXPECT_FALSE(window.in_on_save());
}

TEST(VirtualClockTest, AdvancesForRankZerosStepsEvaluationsAndCheckpoints) {
    VirtualClock clock;
    clock.on(StepStarted{1});
    clock.on(EvaluationStarted{2});
    EXPECT_EQ(clock.now_ms(), 0);
    clock.on(StepStarted{0});
    clock.on(EvaluationStarted{0});
    clock.on(CheckpointStarted{10});
    EXPECT_EQ(clock.now_ms(), kStepMs + kEvaluationMs + kCheckpointMs);
}

}  // namespace
}  // namespace ckpt::sim
