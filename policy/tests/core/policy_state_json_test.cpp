// Unit tests of the policy's state_dict round trip and load: the seed's keys, exact doubles,
// Python equality for settings, and refusals that leave the policy unchanged. policy/core only.
#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

std::string load_error(CheckpointEvaluationPolicy& policy, const json& payload) {
    try {
        policy.load_state_dict(payload);
    } catch (const ValueError& e) {
        return e.what();
    }
    return "loaded";
}

TEST(PolicyStateJson, StateDictHasTheSeedKeys) {
    CheckpointEvaluationPolicy policy(PolicySettings{4, TiePolicy::count, 7});
    const json expected = json::parse(R"({
        "version": 1, "patience": 4, "tie_policy": "count", "patience_start_step": 7,
        "state": {"best_score": null, "best_step": null, "lower_score_streak": 0,
                  "evaluation_count": 0, "stop_requested": false, "best_is_external": false}})");
    EXPECT_EQ(policy.state_dict(), expected);
    policy.observe(0.25, 12);
    EXPECT_EQ(policy.state_dict()["state"]["best_score"], 0.25);
    EXPECT_EQ(policy.state_dict()["state"]["best_step"], 12);
    EXPECT_EQ(policy.state_dict()["state"]["evaluation_count"], 1);
}

TEST(PolicyStateJson, RoundTripsExactly) {
    CheckpointEvaluationPolicy policy(PolicySettings{3, TiePolicy::ignore, 0});
    policy.observe(0.1 + 0.2, 5);
    policy.observe(0.1, 6);
    const auto text = policy.state_dict().dump();
    auto restored = CheckpointEvaluationPolicy::from_state_dict(json::parse(text));
    EXPECT_EQ(restored.state(), policy.state());
    EXPECT_EQ(restored.settings(), policy.settings());
    EXPECT_EQ(*restored.state().best_score, 0.1 + 0.2);
}

TEST(PolicyStateJson, FlatPayloadWithoutStateIsAccepted) {
    CheckpointEvaluationPolicy policy;
    EXPECT_EQ(load_error(policy, json::parse(R"({"best_score": 2, "best_step": 4, "evaluation_count": 1})")),
              "loaded");
    EXPECT_EQ(policy.state().best_score, 2.0);
    EXPECT_EQ(policy.state().evaluation_count, 1);
}

TEST(PolicyStateJson, RefusesOtherSettingsAndVersions) {
    CheckpointEvaluationPolicy policy;
    EXPECT_EQ(load_error(policy, json::array()), "checkpoint evaluation state must be a mapping");
    EXPECT_EQ(load_error(policy, {{"version", 2}}), "unsupported checkpoint evaluation state version: 2");
    EXPECT_EQ(load_error(policy, {{"version", "1"}}), "unsupported checkpoint evaluation state version: '1'");
    EXPECT_EQ(load_error(policy, {{"version", nullptr}}),
              "unsupported checkpoint evaluation state version: None");
    EXPECT_EQ(load_error(policy, {{"patience", 4}}),
              "resumed checkpoint evaluation patience does not match configuration");
    EXPECT_EQ(load_error(policy, {{"tie_policy", "stop"}}),
              "resumed checkpoint evaluation tie_policy does not match configuration");
    EXPECT_EQ(load_error(policy, {{"patience_start_step", 1}}),
              "resumed checkpoint evaluation patience_start_step does not match configuration");
    EXPECT_EQ(load_error(policy, {{"state", 3}}),
              "checkpoint evaluation state payload must contain a state mapping");
    EXPECT_EQ(load_error(policy, {{"state", {{"best_score", "x"}, {"best_step", 1}}}}),
              "checkpoint evaluation score must be numeric, got 'x'");
    EXPECT_EQ(load_error(policy, {{"state", {{"best_score", 1.0}, {"best_step", 1.5}}}}),
              "checkpoint evaluation step must be a non-negative integer");
    EXPECT_EQ(load_error(policy, {{"state", {{"stop_requested", true}}}}),
              "checkpoint evaluation stop state has no best score");
}

TEST(PolicyStateJson, PythonEqualityForSettings) {
    CheckpointEvaluationPolicy policy;
    // Python compares 1.0 == 1 and True == 1, int("3") == 3, and trims/lowers tie_policy.
    EXPECT_EQ(load_error(policy, {{"version", 1.0}, {"patience", "3"}, {"tie_policy", " RESET "}}), "loaded");
    EXPECT_EQ(load_error(policy, {{"version", true}, {"patience", 3.9}}), "loaded");
}

TEST(PolicyStateJson, FailedLoadChangesNothing) {
    CheckpointEvaluationPolicy policy;
    policy.observe(0.5, 1);
    const auto before = policy.state();
    EXPECT_NE(
        load_error(policy, {{"state", {{"best_score", 1.0}, {"lower_score_streak", -1}, {"best_step", 2}}}}),
        "loaded");
    EXPECT_EQ(policy.state(), before);
}

TEST(PolicyStateJson, CountersAndFlagsAreCoercedLikePython) {
    CheckpointEvaluationPolicy policy;
    policy.load_state_dict({{"state",
                             {{"best_score", 1},
                              {"best_step", 2.0},
                              {"lower_score_streak", 1.9},
                              {"evaluation_count", "3"},
                              {"stop_requested", "yes"},
                              {"best_is_external", 0}}}});
    EXPECT_EQ(policy.state().lower_score_streak, 1);
    EXPECT_EQ(policy.state().evaluation_count, 3);
    EXPECT_TRUE(policy.state().stop_requested);
    EXPECT_FALSE(policy.state().best_is_external);
    EXPECT_EQ(policy.state().best_step, 2);
}

TEST(DecisionDict, RoundTripsAndListsMissingFieldsSorted) {
    CheckpointEvaluationPolicy policy;
    const auto decision = policy.observe(0.75, 9);
    EXPECT_EQ(CheckpointEvaluationDecision::from_dict(decision.to_dict()), decision);
    EXPECT_EQ(decision.to_dict()["reason"], "initial");
    try {
        CheckpointEvaluationDecision::from_dict({{"score", 1.0}, {"step", 1}});
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "checkpoint evaluation decision missing fields: ['best_score', 'best_step', "
                     "'evaluation_count', 'lower_score_streak', 'reason', 'should_save', 'should_stop']");
    }
    EXPECT_THROW(CheckpointEvaluationDecision::from_dict(json(1)), ValueError);
}

TEST(DecisionDict, BestIsExternalIsOptional) {
    auto dict = CheckpointEvaluationPolicy().observe(0.5, 1).to_dict();
    dict.erase("best_is_external");
    EXPECT_FALSE(CheckpointEvaluationDecision::from_dict(dict).best_is_external);
}

}  // namespace
}  // namespace ckpt
