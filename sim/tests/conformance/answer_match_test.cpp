// The comparison check-policy judges answers by: numbers by value, messages ignored, every
// other difference named by its path. And the reference answers it compares with.
#include "sim/conformance/answer_match.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/conformance/input_spellings.hpp"
#include "sim/conformance/reference_answers.hpp"

namespace ckpt::sim::conformance {
namespace {

using nlohmann::json;

TEST(AnswerMatch, NumbersCompareByValueAndMessagesAreIgnored) {
    const json expected{{"error", {{"kind", "value_error"}}}, {"state", {{"best_score", 1.0}}}};
    EXPECT_EQ(answer_difference(expected,
                                R"({"error":{"kind":"value_error","message":"x"},"state":{"best_score":1}})"),
              "");
}

TEST(AnswerMatch, EachDifferenceIsNamedByItsPath) {
    const json expected{{"decision", {{"reason", "tie_reset"}}}, {"state", json::object()}};
    EXPECT_EQ(answer_difference(expected, R"({"decision":{"reason":"improved"},"state":{}})"),
              R"(decision.reason: expected "tie_reset", got "improved")");
    EXPECT_EQ(answer_difference(expected, R"({"state":{}})"), "no 'decision' where one is expected");
    EXPECT_EQ(answer_difference(expected, R"({"decision":{"reason":"tie_reset"},"state":{"x":1}})"),
              "state.x: not expected (got 1)");
    EXPECT_EQ(
        answer_difference({{"error", {{"kind", "input_error"}}}}, R"({"error":{"kind":"value_error"}})"),
        R"(error.kind: expected "input_error", got "value_error")");
    EXPECT_EQ(answer_difference(expected, "y"), "the answer is not a JSON object");
    EXPECT_EQ(
        answer_difference({{"state", {{"stop_requested", false}}}}, R"({"state":{"stop_requested":0}})"),
        "state.stop_requested: expected false, got 0");  // a bool is not a number
}

TEST(ReferenceAnswers, ARefusedInputLeavesTheStateAndAStopRefusesOnlyValidScores) {
    const PolicySettings settings{1, TiePolicy::reset, 0};
    const auto answers = reference_answers(
        settings,
        {observe(0.5, 1), observe(0.25, 2), ObserveInput{refused_scores()[0], step(3)}, observe(0.9, 3)});
    EXPECT_EQ(answers[1]["decision"]["reason"], "patience_exhausted");
    EXPECT_EQ(answers[2]["error"]["kind"], "value_error");  // the score is judged before the stop
    EXPECT_EQ(answers[3]["error"]["kind"], "runtime_error");
    EXPECT_EQ(answers[3]["state"], answers[1]["state"]);
}

TEST(ReferenceAnswers, ALoadOfAnInconsistentStateIsRefused) {
    const PolicySettings settings;
    CheckpointEvaluationState no_best;
    no_best.stop_requested = true;
    const auto answers = reference_answers(settings, {load_state(settings, no_best, LoadForm::flat)});
    EXPECT_EQ(answers[0]["error"]["kind"], "value_error");
}

}  // namespace
}  // namespace ckpt::sim::conformance
