// Unit tests of the policy's decisions against the seed: initial, improved, lower, ties under
// every tie policy, warm-up, the external baseline, and the seed's validation messages. Rejected
// input must change nothing. Depends on policy/core only.
#include "policy/core/checkpoint_evaluation_policy.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

CheckpointEvaluationPolicy make(std::int64_t patience, TiePolicy tie, std::int64_t start = 0) {
    return CheckpointEvaluationPolicy(PolicySettings{patience, tie, start});
}

TEST(PolicyObserve, FirstScoreIsInitialAndSaves) {
    auto policy = make(3, TiePolicy::reset);
    const auto d = policy.observe(0.5, 10);
    EXPECT_EQ(d.reason, DecisionReason::initial);
    EXPECT_TRUE(d.should_save);
    EXPECT_FALSE(d.should_stop);
    EXPECT_EQ(d.best_score, 0.5);
    EXPECT_EQ(d.best_step, 10);
    EXPECT_EQ(d.evaluation_count, 1);
    EXPECT_TRUE(d.improved());
}

TEST(PolicyObserve, StrictImprovementSavesAndResetsStreak) {
    auto policy = make(3, TiePolicy::reset);
    policy.observe(0.5, 10);
    policy.observe(0.4, 20);
    const auto d = policy.observe(0.6, 30);
    EXPECT_EQ(d.reason, DecisionReason::improved);
    EXPECT_TRUE(d.should_save);
    EXPECT_EQ(d.lower_score_streak, 0);
    EXPECT_EQ(policy.state().best_step, 30);
}

TEST(PolicyObserve, LowerScoresStopAtPatience) {
    auto policy = make(3, TiePolicy::reset);
    policy.observe(0.5, 10);
    EXPECT_EQ(policy.observe(0.4, 20).reason, DecisionReason::lower);
    EXPECT_EQ(policy.observe(0.3, 30).reason, DecisionReason::lower);
    const auto d = policy.observe(0.2, 40);
    EXPECT_EQ(d.reason, DecisionReason::patience_exhausted);
    EXPECT_TRUE(d.should_stop);
    EXPECT_FALSE(d.should_save);
    EXPECT_EQ(d.lower_score_streak, 3);
    EXPECT_TRUE(policy.state().stop_requested);
    EXPECT_EQ(policy.state().best_step, 10);
}

TEST(PolicyObserve, ObservingAfterStopIsRuntimeErrorAndChangesNothing) {
    auto policy = make(1, TiePolicy::reset);
    policy.observe(0.5, 10);
    policy.observe(0.1, 20);
    const auto before = policy.state();
    EXPECT_THROW(policy.observe(0.9, 30), RuntimeError);
    EXPECT_EQ(policy.state(), before);
}

TEST(PolicyObserve, TiePolicies) {
    struct Case {
        TiePolicy tie;
        DecisionReason reason;
        bool stop;
        std::int64_t streak;
    };
    for (const auto& c : {Case{TiePolicy::reset, DecisionReason::tie_reset, false, 0},
                          Case{TiePolicy::ignore, DecisionReason::tie_ignored, false, 1},
                          Case{TiePolicy::stop, DecisionReason::tie_stop, true, 1},
                          Case{TiePolicy::count, DecisionReason::tie_counted, false, 2}}) {
        auto policy = make(3, c.tie);
        policy.observe(0.5, 10);
        policy.observe(0.4, 20);  // streak 1
        const auto d = policy.observe(0.5, 30);
        EXPECT_EQ(d.reason, c.reason) << to_string(c.tie);
        EXPECT_EQ(d.should_stop, c.stop) << to_string(c.tie);
        EXPECT_FALSE(d.should_save) << to_string(c.tie);
        EXPECT_EQ(d.lower_score_streak, c.streak) << to_string(c.tie);
        EXPECT_EQ(policy.state().best_step, 10) << "a tie never replaces the best";
    }
}

TEST(PolicyObserve, CountedTiesExhaustPatience) {
    auto policy = make(2, TiePolicy::count);
    policy.observe(1.0, 1);
    EXPECT_EQ(policy.observe(1.0, 2).reason, DecisionReason::tie_counted);
    const auto d = policy.observe(1.0, 3);
    EXPECT_EQ(d.reason, DecisionReason::patience_exhausted);
    EXPECT_TRUE(d.should_stop);
}

TEST(PolicyObserve, WarmupNeitherConsumesPatienceNorBlocksImprovement) {
    auto policy = make(1, TiePolicy::stop, 100);
    policy.observe(0.5, 10);
    auto d = policy.observe(0.4, 20);
    EXPECT_EQ(d.reason, DecisionReason::patience_warmup_lower);
    EXPECT_FALSE(d.should_stop);
    EXPECT_EQ(d.lower_score_streak, 0);
    d = policy.observe(0.5, 30);
    EXPECT_EQ(d.reason, DecisionReason::patience_warmup_tie);
    EXPECT_FALSE(d.should_stop);
    d = policy.observe(0.7, 40);
    EXPECT_EQ(d.reason, DecisionReason::improved);
    // At the boundary patience counts.
    d = policy.observe(0.1, 100);
    EXPECT_EQ(d.reason, DecisionReason::patience_exhausted);
}

TEST(PolicyObserve, WarmupResetsAnEarlierStreak) {
    auto policy = make(3, TiePolicy::reset, 50);
    policy.observe(0.5, 10);
    // A state restored from a run with a streak, then a warm-up evaluation, clears it.
    auto state = policy.state();
    state.lower_score_streak = 2;
    policy = CheckpointEvaluationPolicy(policy.settings(), state);
    EXPECT_EQ(policy.observe(0.1, 20).lower_score_streak, 0);
}

TEST(PolicyObserve, RejectedInputChangesNothing) {
    auto policy = make(3, TiePolicy::reset);
    policy.observe(0.5, 10);
    const auto before = policy.state();
    EXPECT_THROW(policy.observe(std::numeric_limits<double>::quiet_NaN(), 20), ValueError);
    EXPECT_THROW(policy.observe(std::numeric_limits<double>::infinity(), 20), ValueError);
    EXPECT_THROW(policy.observe(0.7, -1), ValueError);
    EXPECT_THROW(policy.observe(json(0.7), json(true)), ValueError);
    EXPECT_THROW(policy.observe(json(0.7), json(3.5)), ValueError);
    EXPECT_THROW(policy.observe(json(0.7), json("3")), ValueError);
    EXPECT_THROW(policy.observe(json(nullptr), json(3)), ValueError);
    EXPECT_EQ(policy.state(), before);
}

TEST(PolicyObserve, IntegralFloatStepIsAccepted) {
    auto policy = make(3, TiePolicy::reset);
    EXPECT_EQ(policy.observe(json(1), json(3.0)).step, 3);
    EXPECT_EQ(policy.observe(json("2.5"), json(-0.0)).step, 0);
    EXPECT_EQ(policy.state().best_score, 2.5);
}

TEST(PolicyObserve, ScoreMessagesQuoteTheValue) {
    auto policy = make(3, TiePolicy::reset);
    try {
        policy.observe(std::numeric_limits<double>::quiet_NaN(), 1);
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(), "checkpoint evaluation score must be finite, got nan");
    }
    try {
        policy.observe(json("abc"), json(1));
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(), "checkpoint evaluation score must be numeric, got 'abc'");
    }
    try {
        policy.observe(json(1.0), json(true));
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(), "checkpoint evaluation step must be a non-negative integer");
    }
}

TEST(PolicyBaseline, ExternalBaselineParticipatesButIsNotAnEvaluation) {
    auto policy = make(2, TiePolicy::reset);
    const auto& state = policy.establish_external_baseline(0.5);
    EXPECT_TRUE(state.best_is_external);
    EXPECT_EQ(state.best_step, 0);
    EXPECT_EQ(state.evaluation_count, 0);
    auto d = policy.observe(0.4, 10);
    EXPECT_EQ(d.reason, DecisionReason::lower);
    EXPECT_TRUE(d.best_is_external);
    d = policy.observe(0.6, 20);
    EXPECT_EQ(d.reason, DecisionReason::improved);
    EXPECT_FALSE(d.best_is_external);
}

TEST(PolicyBaseline, KeepsAnExistingBest) {
    auto policy = make(2, TiePolicy::reset);
    policy.observe(0.3, 10);
    policy.establish_external_baseline(0.9, 0);
    EXPECT_EQ(policy.state().best_score, 0.3);
    EXPECT_FALSE(policy.state().best_is_external);
}

TEST(PolicyBaseline, RejectsBadInput) {
    auto policy = make(2, TiePolicy::reset);
    EXPECT_THROW(policy.establish_external_baseline(std::numeric_limits<double>::infinity()), ValueError);
    EXPECT_THROW(policy.establish_external_baseline(json(0.5), json(-2)), ValueError);
    EXPECT_FALSE(policy.state().best_score.has_value());
}

TEST(PolicySettingsValidation, SeedMessages) {
    const auto message = [](auto&& build) {
        try {
            build();
        } catch (const ValueError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([] { make(0, TiePolicy::reset); }), "patience must be a positive integer, got 0");
    EXPECT_EQ(message([] { make(3, TiePolicy::reset, -1); }),
              "patience_start_step must be a non-negative integer");
    EXPECT_EQ(message([] { CheckpointEvaluationPolicy::from_loose_settings("x", "reset", 0); }),
              "patience must be a positive integer");
    EXPECT_EQ(message([] { CheckpointEvaluationPolicy::from_loose_settings(3, "median", 0); }),
              "tie_policy must be one of: reset, ignore, stop, count");
    EXPECT_EQ(message([] { CheckpointEvaluationPolicy::from_loose_settings(3, "reset", nullptr); }),
              "patience_start_step must be a non-negative integer");
}

TEST(PolicySettingsValidation, TiePolicyIsTrimmedAndCaseInsensitive) {
    const auto policy = CheckpointEvaluationPolicy::from_loose_settings("4", "  CoUnT\n", 2.0);
    EXPECT_EQ(policy.settings().tie_policy, TiePolicy::count);
    EXPECT_EQ(policy.settings().patience, 4);
    EXPECT_EQ(policy.settings().patience_start_step, 2);
}

TEST(PolicyStateValidation, SeedRulesAndMessages) {
    const auto message = [](CheckpointEvaluationState s) {
        try {
            CheckpointEvaluationPolicy::validate_state(s);
        } catch (const ValueError& e) {
            return std::string(e.what());
        }
        return std::string("valid");
    };
    CheckpointEvaluationState s;
    EXPECT_EQ(message(s), "valid");
    s.best_step = 3;
    EXPECT_EQ(message(s), "checkpoint evaluation state has best_step without best_score");
    s = {};
    s.best_score = 1.0;
    EXPECT_EQ(message(s), "checkpoint evaluation state has best_score without best_step");
    s.best_step = 1;
    s.lower_score_streak = -1;
    EXPECT_EQ(message(s), "checkpoint evaluation counters cannot be negative");
    s = {};
    s.evaluation_count = 1;
    EXPECT_EQ(message(s), "checkpoint evaluation state has completed evaluations without a best score");
    s = {};
    s.stop_requested = true;
    EXPECT_EQ(message(s), "checkpoint evaluation stop state has no best score");
    s = {};
    s.best_is_external = true;
    EXPECT_EQ(message(s), "external checkpoint evaluation baseline has no score");
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

TEST(PolicyObserve, CountersThatWouldOverflowAreRefusedNotWrapped) {
    CheckpointEvaluationState state;
    state.best_score = 1.0;
    state.best_step = 1;
    state.evaluation_count = 1;
    state.lower_score_streak = INT64_MAX;
    CheckpointEvaluationPolicy policy(PolicySettings{3, TiePolicy::reset, 0}, state);
    EXPECT_THROW(policy.observe(0.0, 2), ValueError);
    EXPECT_EQ(policy.state(), state);
}

}  // namespace
}  // namespace ckpt
