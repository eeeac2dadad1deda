// TriggerCallback: construction, the save-to-evaluate redirect and its veto, consuming and
// recording decisions, and the ExportableState format. The sidecar and the commit have their
// own files (trigger_callback_sidecar_test.cpp, trigger_callback_save_test.cpp).
#include "policy/trigger/trigger_callback.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/tests/support/json_keys.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"

namespace ckpt::testing {
namespace {

using ::testing::HasSubstr;

template <typename Backend>
using TriggerCallbackEvents = TriggerCallbackTest<Backend>;
TYPED_TEST_SUITE(TriggerCallbackEvents, Backends, BackendNames);

template <typename Call>
std::string value_error_of(Call&& call) {
    try {
        call();
    } catch (const ValueError& error) {
        return error.what();
    }
    return "<no ValueError>";
}

// ---- construction ----------------------------------------------------------------------------

TYPED_TEST(TriggerCallbackEvents, RejectsANonPositiveSaveTotalLimit) {
    for (const std::int64_t limit : {0, -3}) {
        auto config = this->config();
        config.save_total_limit = limit;
        EXPECT_EQ(value_error_of([&] { this->make(config); }),
                  "checkpoint evaluation save_total_limit must be positive");
    }
}

TYPED_TEST(TriggerCallbackEvents, DeduplicatesAndSortsGateSteps) {
    auto config = this->config();
    config.gate_steps = {50, 10, 25, 10, 50};
    const auto callback = this->make(config);
    EXPECT_THAT(callback.config().gate_steps, ElementsAre(10, 25, 50));
    EXPECT_EQ(callback.state()["args"]["gate_steps"], json({10, 25, 50}));
}

TYPED_TEST(TriggerCallbackEvents, RejectsNonPositiveGateSteps) {
    for (const std::int64_t bad : {0, -10}) {
        auto config = this->config();
        config.gate_steps = {10, bad};
        EXPECT_EQ(value_error_of([&] { this->make(config); }),
                  "checkpoint evaluation gate_steps must contain positive integers");
    }
}

TYPED_TEST(TriggerCallbackEvents, RejectsNonPositiveRegularSteps) {
    for (const std::int64_t bad : {0, -100}) {
        auto config = this->config();
        config.regular_steps = bad;
        EXPECT_EQ(value_error_of([&] { this->make(config); }),
                  "checkpoint evaluation regular_steps must be positive");
    }
}

TYPED_TEST(TriggerCallbackEvents, RejectsInvalidPolicySettingsWithThePolicysMessage) {
    auto config = this->config();
    config.policy.patience = 0;
    EXPECT_EQ(value_error_of([&] { this->make(config); }), "patience must be a positive integer, got 0");
}

// ---- on_step_end / on_epoch_end -------------------------------------------------------------

TYPED_TEST(TriggerCallbackEvents, PromotesAGateStepToAnEvaluation) {
    auto config = this->config();
    config.gate_steps = {10, 25};
    auto callback = this->make(config);
    TrainerControl control;
    callback.on_step_end({.global_step = 25}, control);
    EXPECT_FALSE(control.should_save);
    EXPECT_TRUE(control.should_evaluate);
    EXPECT_TRUE(callback.pending_checkpoint_evaluation());
    EXPECT_EQ(callback.trigger_count(), 1);

    TrainerControl quiet;
    callback.on_step_end({.global_step = 26}, quiet);
    EXPECT_FALSE(quiet.should_save);
    EXPECT_FALSE(quiet.should_evaluate);
    EXPECT_EQ(callback.trigger_count(), 1);
}

TYPED_TEST(TriggerCallbackEvents, PromotesEveryMultipleOfRegularStepsButNotStepZero) {
    auto config = this->config();
    config.regular_steps = 50;
    auto callback = this->make(config);
    for (const std::int64_t step : {0, 49, 50, 75, 100}) {
        TrainerControl control;
        callback.on_step_end({.global_step = step}, control);
        EXPECT_EQ(control.should_evaluate, step == 50 || step == 100) << "step " << step;
        EXPECT_FALSE(control.should_save) << "step " << step;
    }
    EXPECT_EQ(callback.trigger_count(), 2);
}

TYPED_TEST(TriggerCallbackEvents, RedirectsANativeSaveOnStepEndAndEpochEnd) {
    auto callback = this->make();
    const auto on_step = native_save_at_step_end(callback, 7);
    EXPECT_FALSE(on_step.should_save);
    EXPECT_TRUE(on_step.should_evaluate);

    const auto on_epoch = native_save_at_epoch_end(callback, 8);
    EXPECT_FALSE(on_epoch.should_save);
    EXPECT_TRUE(on_epoch.should_evaluate);
    EXPECT_EQ(callback.trigger_count(), 2);
}

TYPED_TEST(TriggerCallbackEvents, LeavesAnEpochEndWithoutASaveAlone) {
    auto callback = this->make();
    TrainerControl control;
    control.should_evaluate = true;  // eval_strategy="epoch" is not ours to touch
    callback.on_epoch_end({.global_step = 8}, control);
    EXPECT_TRUE(control.should_evaluate);
    EXPECT_FALSE(callback.pending_checkpoint_evaluation());
    EXPECT_EQ(callback.trigger_count(), 0);
}

TYPED_TEST(TriggerCallbackEvents, DisabledCallbackNeitherPromotesNorRedirects) {
    auto config = this->config();
    config.enabled = false;
    config.gate_steps = {10};
    auto callback = this->make(config);
    TrainerControl gate;
    callback.on_step_end({.global_step = 10}, gate);
    EXPECT_FALSE(gate.should_save);
    EXPECT_FALSE(gate.should_evaluate);

    const auto native = native_save_at_step_end(callback, 11);
    EXPECT_TRUE(native.should_save);
    EXPECT_FALSE(native.should_evaluate);
    EXPECT_EQ(callback.trigger_count(), 0);
}

TYPED_TEST(TriggerCallbackEvents, MaxStepsStopDoesNotVetoTheFinalScheduledEvaluation) {
    auto callback = this->make();
    TrainerControl control;
    control.should_training_stop = true;  // Transformers sets this at max_steps
    control.should_save = true;
    callback.on_step_end({.global_step = 100}, control);
    EXPECT_TRUE(control.should_evaluate);
    EXPECT_TRUE(callback.pending_checkpoint_evaluation());
}

// Patience ran out: the next on_step_end and on_epoch_end must not evaluate or save again.
TYPED_TEST(TriggerCallbackEvents, VetoesSaveAndEvaluateAfterAPolicyStop) {
    auto config = this->config();
    config.gate_steps = {30};
    config.policy.patience = 1;
    auto callback = this->make(config);
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.9, 10));
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.1, 20));
    ASSERT_TRUE(callback.policy_stop_requested());

    TrainerControl step_end;
    step_end.should_evaluate = true;
    callback.on_step_end({.global_step = 30}, step_end);
    EXPECT_FALSE(step_end.should_save);
    EXPECT_FALSE(step_end.should_evaluate);

    TrainerControl epoch_end;
    epoch_end.should_save = true;
    epoch_end.should_evaluate = true;
    callback.on_epoch_end({.global_step = 30}, epoch_end);
    EXPECT_FALSE(epoch_end.should_save);
    EXPECT_FALSE(epoch_end.should_evaluate);
    EXPECT_FALSE(callback.consume_checkpoint_evaluation());
    EXPECT_EQ(callback.trigger_count(), 0);
}

TYPED_TEST(TriggerCallbackEvents, VetoClearsAPendingEvaluation) {
    auto callback = this->make();
    native_save_at_step_end(callback, 5);
    ASSERT_TRUE(callback.pending_checkpoint_evaluation());
    auto decision = callback.policy().observe(0.5, 5).to_dict();
    decision["should_stop"] = true;
    callback.record_checkpoint_evaluation_decision(decision);
    TrainerControl epoch_end;
    callback.on_epoch_end({.global_step = 5}, epoch_end);
    EXPECT_FALSE(callback.pending_checkpoint_evaluation());
}

// The seed checks the stop before `enabled`: even a disabled callback vetoes after a stop.
TYPED_TEST(TriggerCallbackEvents, VetoAppliesEvenWhenDisabled) {
    auto config = this->config();
    config.enabled = false;
    auto callback = this->make(config);
    auto decision = callback.policy().observe(0.5, 5).to_dict();
    decision["should_stop"] = true;
    callback.record_checkpoint_evaluation_decision(decision);
    const auto control = native_save_at_epoch_end(callback, 6);
    EXPECT_FALSE(control.should_save);
}

// ---- consume / record -----------------------------------------------------------------------

TYPED_TEST(TriggerCallbackEvents, ConsumeReturnsThePendingEvaluationOnce) {
    auto callback = this->make();
    EXPECT_FALSE(callback.consume_checkpoint_evaluation());
    TrainerControl control;
    control.should_save = true;
    callback.on_step_end({.global_step = 3}, control);
    EXPECT_TRUE(callback.consume_checkpoint_evaluation());
    EXPECT_FALSE(callback.consume_checkpoint_evaluation());
    EXPECT_EQ(callback.trigger_count(), 1);
}

TYPED_TEST(TriggerCallbackEvents, RecordsASavingDecisionAsThePendingSaveStep) {
    auto callback = this->make();
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));
    EXPECT_EQ(callback.pending_checkpoint_save_step(), 10);
    // The same save recorded twice (for example by every rank's broadcast copy) is harmless.
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));
    EXPECT_EQ(callback.pending_checkpoint_save_step(), 10);
    EXPECT_FALSE(callback.policy_stop_requested());
}

TYPED_TEST(TriggerCallbackEvents, NonSavingDecisionLeavesNoPendingSave) {
    auto callback = this->make();
    callback.policy().establish_external_baseline(0.9);
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.1, 10));
    EXPECT_EQ(callback.pending_checkpoint_save_step(), std::nullopt);
}

TYPED_TEST(TriggerCallbackEvents, RefusesASecondSaveBeforeThePriorBestCommitted) {
    auto callback = this->make();
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));
    const auto second = callback.policy().observe(0.6, 20);
    try {
        callback.record_checkpoint_evaluation_decision(second);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(error.what(),
                     "checkpoint evaluation attempted to schedule a second save before the prior best "
                     "checkpoint committed");
    }
    EXPECT_EQ(callback.pending_checkpoint_save_step(), 10);
}

TYPED_TEST(TriggerCallbackEvents, RecordsADecisionReceivedAsAMapping) {
    auto callback = this->make();
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10).to_dict());
    EXPECT_EQ(callback.pending_checkpoint_save_step(), 10);
    EXPECT_THAT(value_error_of([&] {
                    callback.record_checkpoint_evaluation_decision(json{{"score", 1.0}});
                }),
                HasSubstr("checkpoint evaluation decision missing fields"));
}

// ---- state() / from_state() -----------------------------------------------------------------

TYPED_TEST(TriggerCallbackEvents, StateHasExactlyTheSeedsKeys) {
    auto config = this->config();
    config.gate_steps = {10};
    config.regular_steps = 100;
    config.save_total_limit = 2;
    config.policy.tie_policy = TiePolicy::count;
    auto callback = this->make(config);
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));

    const json state = callback.state();
    EXPECT_THAT(keys_of(state), ElementsAre("args", "attributes"));
    EXPECT_THAT(keys_of(state["args"]),
                ElementsAre("enabled", "gate_steps", "output_dir", "patience", "patience_start_step",
                            "regular_steps", "save_total_limit", "tie_policy"));
    // The in-flight save step is process-local and never part of the state.
    EXPECT_THAT(keys_of(state["attributes"]),
                ElementsAre("checkpoint_eval_state", "pending_checkpoint_evaluation", "trigger_count"));
    EXPECT_EQ(state["args"]["output_dir"], this->root());
    EXPECT_EQ(state["args"]["regular_steps"], 100);
    EXPECT_EQ(state["args"]["save_total_limit"], 2);
    EXPECT_EQ(state["args"]["tie_policy"], "count");
    EXPECT_EQ(state["attributes"]["checkpoint_eval_state"], callback.policy().state_dict());
}

TYPED_TEST(TriggerCallbackEvents, StateOfADefaultCallbackUsesNullForUnsetArguments) {
    TriggerCallbackConfig config;
    const auto state = this->make(config).state();
    EXPECT_TRUE(state["args"]["output_dir"].is_null());
    EXPECT_TRUE(state["args"]["regular_steps"].is_null());
    EXPECT_EQ(state["args"]["gate_steps"], json::array());
}

TYPED_TEST(TriggerCallbackEvents, FromStateRoundTripsAndNeverRestoresTheInFlightSave) {
    auto config = this->config();
    config.gate_steps = {10, 20};
    auto callback = this->make(config);
    TrainerControl control;
    callback.on_step_end({.global_step = 10}, control);
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));

    auto restored = this->from_state(callback.state());
    EXPECT_EQ(restored.state(), callback.state());
    EXPECT_EQ(restored.policy().state(), callback.policy().state());
    EXPECT_TRUE(restored.pending_checkpoint_evaluation());
    EXPECT_EQ(restored.trigger_count(), 1);
    EXPECT_EQ(restored.pending_checkpoint_save_step(), std::nullopt);
}

TYPED_TEST(TriggerCallbackEvents, FromStateRestoresAStopSoTheVetoApplies) {
    auto config = this->config();
    config.policy.patience = 1;
    auto callback = this->make(config);
    callback.policy().observe(0.9, 10);
    callback.policy().observe(0.1, 20);
    auto restored = this->from_state(callback.state());
    EXPECT_TRUE(restored.policy_stop_requested());
    const auto control = native_save_at_epoch_end(restored, 21);
    EXPECT_FALSE(control.should_save);
    EXPECT_FALSE(control.should_evaluate);
}

TYPED_TEST(TriggerCallbackEvents, FromStateUsesTheSeedsDefaultsForMissingKeys) {
    auto restored = this->from_state(json::object());
    EXPECT_TRUE(restored.config().enabled);
    EXPECT_EQ(restored.config().policy.patience, 3);
    EXPECT_EQ(restored.config().policy.tie_policy, TiePolicy::reset);
    EXPECT_EQ(restored.config().save_total_limit, 1);
    EXPECT_EQ(restored.config().output_dir, std::nullopt);
    EXPECT_EQ(restored.trigger_count(), 0);
    EXPECT_EQ(restored.policy().state().evaluation_count, 0);
}

TYPED_TEST(TriggerCallbackEvents, FromStateValidatesLikeTheConstructor) {
    const json bad_limit = {{"args", {{"save_total_limit", "many"}}}};
    EXPECT_EQ(value_error_of([&] { this->from_state(bad_limit); }),
              "checkpoint evaluation save_total_limit must be positive");
    const json bad_gate = {{"args", {{"gate_steps", {5, 0}}}}};
    EXPECT_EQ(value_error_of([&] { this->from_state(bad_gate); }),
              "checkpoint evaluation gate_steps must contain positive integers");
    // A saved policy state whose settings differ from the saved args is refused, not adopted.
    auto callback = this->make();
    json mismatched = callback.state();
    mismatched["args"]["patience"] = 5;
    EXPECT_EQ(value_error_of([&] { this->from_state(mismatched); }),
              "resumed checkpoint evaluation patience does not match configuration");
}

}  // namespace
}  // namespace ckpt::testing
