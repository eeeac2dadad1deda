// How the simulation classifies a failed rank: by the exception's type and the rank-zero
// operation it names, so a message that merely mentions the sidecar restore is not one.
#include "sim/trainer/rank_failure.hpp"

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/ports/rank_zero_outcome.hpp"
#include "policy/trigger/rank_zero_operations.hpp"

namespace ckpt::sim {
namespace {

TEST(RankFailure, ASidecarRestoreFailureIsClassifiedByItsOperation) {
    const auto error = std::make_exception_ptr(RankZeroFailure(kSidecarRestoreOperation, "any text"));
    EXPECT_EQ(failure_kind(error), RankFailureKind::sidecar_restore);
}

TEST(RankFailure, TheMessageTextAloneClassifiesNothing) {
    const auto plain =
        std::make_exception_ptr(RuntimeError("checkpoint evaluation sidecar policy restore failed"));
    EXPECT_EQ(failure_kind(plain), RankFailureKind::other);
    const auto other_operation = std::make_exception_ptr(
        RankZeroFailure(kSavedCheckpointPublicationOperation, "sidecar policy restore"));
    EXPECT_EQ(failure_kind(other_operation), RankFailureKind::other);
    EXPECT_EQ(failure_kind(nullptr), RankFailureKind::other);
}

TEST(RankFailure, ACallbackStateRestoreFailureIsClassifiedByItsType) {
    const auto error = std::make_exception_ptr(
        CallbackStateRestoreFailed("CheckpointEvaluationTriggerCallback.__init__() got an unexpected keyword "
                                   "argument 'gaate_steps'"));
    EXPECT_EQ(failure_kind(error), RankFailureKind::callback_state_restore);
    const auto untagged = std::make_exception_ptr(TypeError("got an unexpected keyword argument 'x'"));
    EXPECT_EQ(failure_kind(untagged), RankFailureKind::other);
}

// A failed rank's outcome is classified from the object the scheduler kept, without a rethrow,
// and as the exception itself would be.
TEST(RankFailure, AFailedRankIsClassifiedFromTheObjectTheSchedulerKept) {
    RankScheduler scheduler(RankSchedulerConfig{.world_size = 2});
    const RunResult result = scheduler.run([](int rank) {
        if (rank == 0) {
            throw RankZeroFailure(kSidecarRestoreOperation, "restore failed");
        }
        throw BestModelLoadFailed("torn best model");
    });
    ASSERT_EQ(result.ranks.size(), 2U);
    for (const auto& rank : result.ranks) {
        ASSERT_EQ(rank.kind, RankOutcome::Kind::failed);
        ASSERT_NE(rank.thrown, nullptr);
        EXPECT_EQ(failure_kind(rank), failure_kind(rank.error));
    }
    EXPECT_EQ(failure_kind(result.ranks[0]), RankFailureKind::sidecar_restore);
    EXPECT_EQ(failure_kind(result.ranks[1]), RankFailureKind::best_model_load);
    EXPECT_EQ(first_failure_kind(result), RankFailureKind::sidecar_restore);
}

}  // namespace
}  // namespace ckpt::sim
