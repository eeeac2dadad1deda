// P10's restated layout (sim/checks/exportable_state_layout.hpp): an export in Transformers'
// shape passes, and each way of leaving it (a missing class, a list for one callback, a wrong
// argument, a lost key, a policy state other than the ledger's) is a finding.
#include "sim/checks/exportable_state_layout.hpp"

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

using nlohmann::json;

ExpectedStatefulCallbacks two_early_stopping_callbacks() {
    ExpectedStatefulCallbacks expected;
    expected.policy = PolicySettings{3, TiePolicy::count, 50};
    expected.gate_steps = {25, 10};
    expected.regular_steps = 40;
    expected.save_total_limit = 2;
    CheckpointEvaluationState state;
    state.best_score = 0.5;
    state.best_step = 40;
    state.evaluation_count = 2;
    expected.policy_state = state;
    expected.early_stopping = {{1000, 0.0, false, 1, 0.5}, {1001, 0.001, true, 0, std::nullopt}};
    return expected;
}

// Written out by hand from Transformers' layout and the seed's state_dict.
json export_in_transformers_shape() {
    return json::parse(R"({
      "CheckpointEvaluationTriggerCallback": {
        "args": {"enabled": true, "gate_steps": [10, 25], "output_dir": "/run/output", "patience": 3,
                 "patience_start_step": 50, "regular_steps": 40, "save_total_limit": 2, "tie_policy": "count"},
        "attributes": {"pending_checkpoint_evaluation": false, "trigger_count": 4,
                       "checkpoint_eval_state": {"patience": 3, "patience_start_step": 50, "tie_policy": "count",
                         "version": 1, "state": {"best_is_external": false, "best_score": 0.5, "best_step": 40,
                         "evaluation_count": 2, "lower_score_streak": 0, "stop_requested": false}}}},
      "EarlyStoppingCallback": [
        {"args": {"early_stopping_patience": 1000, "early_stopping_threshold": 0.0},
         "attributes": {"best_metric": 0.5, "early_stopping_patience_counter": 1}},
        {"args": {"early_stopping_patience": 1001, "early_stopping_threshold": 0.001},
         "attributes": {"best_metric": null, "early_stopping_patience_counter": 0},
         "state_key": "EarlyStoppingCallback{'early_stopping_patience': 1001, 'early_stopping_threshold': 0.001}"}],
      "TrainerControl": {"args": {"should_epoch_stop": false, "should_evaluate": false, "should_log": false,
                                  "should_save": true, "should_training_stop": false}, "attributes": {}}
    })");
}

TEST(ExportableStateLayout, TransformersShapePasses) {
    EXPECT_EQ(stateful_callbacks_finding(export_in_transformers_shape(), two_early_stopping_callbacks()),
              std::nullopt);
    auto without_ledger = two_early_stopping_callbacks();
    without_ledger.policy_state.reset();
    EXPECT_EQ(stateful_callbacks_finding(export_in_transformers_shape(), without_ledger), std::nullopt);
}

TEST(ExportableStateLayout, EachDepartureIsAFinding) {
    const auto expected = two_early_stopping_callbacks();
    const auto tampered = [&](auto edit) {
        auto live = export_in_transformers_shape();
        edit(live);
        return stateful_callbacks_finding(live, expected);
    };
    EXPECT_NE(tampered([](json& j) { j.erase("TrainerControl"); }), std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["EarlyStoppingCallback"] = j["EarlyStoppingCallback"][0]; }),
              std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["EarlyStoppingCallback"][1].erase("state_key"); }), std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["EarlyStoppingCallback"][0]["state_key"] = "k"; }), std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["EarlyStoppingCallback"][0]["attributes"]["best_metric"] = 0.25; }),
              std::nullopt);
    EXPECT_NE(
        tampered([](json& j) { std::swap(j["EarlyStoppingCallback"][0], j["EarlyStoppingCallback"][1]); }),
        std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["CheckpointEvaluationTriggerCallback"]["args"]["patience"] = 4; }),
              std::nullopt);
    EXPECT_NE(tampered([](json& j) {
                  j["CheckpointEvaluationTriggerCallback"]["args"]["gate_steps"] = {25, 10};
              }),
              std::nullopt);
    EXPECT_NE(tampered([](json& j) {
                  j["CheckpointEvaluationTriggerCallback"]["attributes"]["checkpoint_eval_state"]["state"]
                   ["lower_score_streak"] = 1;
              }),
              std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["CheckpointEvaluationTriggerCallback"]["attributes"]["extra"] = 1; }),
              std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["TrainerControl"]["args"]["should_save"] = 1; }), std::nullopt);
    EXPECT_NE(tampered([](json& j) { j["TrainerControl"]["attributes"]["x"] = 1; }), std::nullopt);
}

TEST(ExportableStateLayout, OneCallbackOfAClassIsStoredBare) {
    auto expected = two_early_stopping_callbacks();
    expected.early_stopping.pop_back();
    auto live = export_in_transformers_shape();
    live["EarlyStoppingCallback"] = live["EarlyStoppingCallback"][0];
    EXPECT_EQ(stateful_callbacks_finding(live, expected), std::nullopt);
    live["EarlyStoppingCallback"] = json::array({live["EarlyStoppingCallback"]});
    EXPECT_NE(stateful_callbacks_finding(live, expected), std::nullopt)
        << "a list of one is not Transformers' shape";
}

TEST(ExportableStateLayout, StateKeysAreLightningsShapeWithPythonsFloatRepr) {
    EXPECT_EQ(expected_state_key(3, 0.0),
              "EarlyStoppingCallback{'early_stopping_patience': 3, 'early_stopping_threshold': 0.0}");
    EXPECT_EQ(expected_state_key(1002, 0.002),
              "EarlyStoppingCallback{'early_stopping_patience': 1002, 'early_stopping_threshold': 0.002}");
}

}  // namespace
}  // namespace ckpt::sim
