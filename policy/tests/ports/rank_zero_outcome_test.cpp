// The rank-zero outcome envelope: a success is shared as the action's object, and a failure
// reaches every rank as a RankZeroFailure that names its operation as a field.
#include "policy/ports/rank_zero_outcome.hpp"

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/ports/collective.hpp"

namespace ckpt {
namespace {

TEST(RankZeroOutcome, ASuccessReturnsTheActionsObject) {
    SingleProcessCollective collective;
    const auto received = run_on_rank_zero_and_share_outcome(collective, true, "probe", [] {
        return nlohmann::json{{"answer", 42}};
    });
    EXPECT_EQ(received->at("answer"), 42);
    EXPECT_EQ(received->at("ok"), true);
}

TEST(RankZeroOutcome, AFailureIsARankZeroFailureNamingItsOperation) {
    SingleProcessCollective collective;
    try {
        run_on_rank_zero_and_share_outcome(collective, true, "sidecar policy restore",
                                           []() -> nlohmann::json { throw ValueError("bad sidecar"); });
        FAIL() << "the failure was not raised";
    } catch (const RankZeroFailure& failure) {
        EXPECT_EQ(failure.operation(), "sidecar policy restore");
        EXPECT_STREQ(failure.what(),
                     "checkpoint evaluation sidecar policy restore failed on global rank zero (ValueError): "
                     "bad sidecar");
    }
}

TEST(RankZeroOutcome, TheOperationIsAFieldNotTheMessage) {
    SingleProcessCollective collective;
    try {
        run_on_rank_zero_and_share_outcome(
            collective, true, "saved checkpoint publication",
            []() -> nlohmann::json { throw RuntimeError("mentions sidecar policy restore"); });
        FAIL() << "the failure was not raised";
    } catch (const RankZeroFailure& failure) {
        EXPECT_EQ(failure.operation(), "saved checkpoint publication");
    }
}

}  // namespace
}  // namespace ckpt
