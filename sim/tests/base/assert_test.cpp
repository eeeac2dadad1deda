// CKPT_ASSERT: a holding invariant costs nothing observable, a broken one aborts in every build
// type and says which condition failed where.
#include "sim/base/assert.hpp"

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

TEST(CkptAssert, AHoldingInvariantLetsExecutionContinue) {
    int evaluations = 0;
    CKPT_ASSERT(++evaluations == 1);
    EXPECT_EQ(evaluations, 1);  // evaluated exactly once
}

TEST(CkptAssertDeathTest, ABrokenInvariantAbortsNamingTheConditionAndPlace) {
    const int running_ranks = 2;
    EXPECT_DEATH(CKPT_ASSERT(running_ranks == 1),
                 "assert_test\\.cpp:[0-9]+: simulator invariant violated: running_ranks == 1");
}

}  // namespace
}  // namespace ckpt::sim
