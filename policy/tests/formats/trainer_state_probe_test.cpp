// Unit tests of the global_step probe: top level only, torn or empty text is not complete, and a
// non-integer step is not a step. Depends on policy/formats only.
#include "policy/formats/trainer_state_probe.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ckpt {
namespace {

TEST(TrainerStateProbe, ReadsTopLevelGlobalStep) {
    EXPECT_EQ(probe_global_step(
                  R"({"epoch": 1.5, "global_step": 40, "stateful_callbacks": {"x": {"global_step": 7}}})"),
              40);
}

TEST(TrainerStateProbe, IgnoresNestedGlobalStep) {
    EXPECT_EQ(probe_global_step(R"({"log_history": [{"global_step": 7}], "a": {"global_step": 9}})"),
              std::nullopt);
}

TEST(TrainerStateProbe, TornOrEmptyDocumentsAreNotComplete) {
    EXPECT_EQ(probe_global_step(""), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 40, "stateful_callbacks": {"Tr)"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"([{"global_step": 40}])"), std::nullopt);
}

TEST(TrainerStateProbe, NonIntegerGlobalStepIsNotAStep) {
    EXPECT_EQ(probe_global_step(R"({"global_step": "40"})"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 40.0})"), std::nullopt);
    EXPECT_EQ(probe_global_step(R"({"global_step": 1, "global_step": null})"), std::nullopt);
}

// The probe remembers recent answers by the whole text: same-sized texts that differ in one
// byte, a torn text and its whole version, asked again and again, each keep their own answer.
TEST(TrainerStateProbe, RememberedAnswersFollowTheExactBytes) {
    for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(probe_global_step(R"({"global_step": 41})"), 41);
        EXPECT_EQ(probe_global_step(R"({"global_step": 42})"), 42);
        EXPECT_EQ(probe_global_step(R"({"global_step": 42)"), std::nullopt);
        EXPECT_EQ(probe_global_step(R"({"global_step": 4.})"), std::nullopt);
        for (int step = 0; step < 20; ++step) {  // more texts than the memo holds
            EXPECT_EQ(probe_global_step(R"({"global_step": )" + std::to_string(100 + step) + "}"),
                      100 + step);
        }
    }
}

}  // namespace
}  // namespace ckpt
