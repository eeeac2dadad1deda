// Unit tests of EarlyStoppingCallback against Transformers' behaviour: patience, threshold,
// direction, non-finite metrics, the resume that keeps its counter (#28544), and state written
// by Transformers itself. Depends on policy/callbacks only.
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/callbacks/early_stopping_callback.hpp"
#include "policy/callbacks/trainer_control.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

// Feeds metrics in order; returns the evaluation (1-based) that asked to stop, or 0.
int first_stop(EarlyStoppingCallback& callback, std::initializer_list<double> metrics,
               bool greater_is_better) {
    TrainerControl control;
    int evaluation = 0;
    for (const double metric : metrics) {
        ++evaluation;
        if (callback.on_evaluate(metric, greater_is_better, control)) {
            EXPECT_TRUE(control.should_training_stop);
            return evaluation;
        }
        EXPECT_FALSE(control.should_training_stop);
    }
    return 0;
}

TEST(EarlyStoppingCallback, StateHasTransformersArgsAndAttributes) {
    EarlyStoppingCallback callback(3, 0.5);
    TrainerControl control;
    callback.on_evaluate(0.8, true, control);
    callback.on_evaluate(0.7, true, control);
    EXPECT_EQ(callback.state(), json::parse(R"({
        "args": {"early_stopping_patience": 3, "early_stopping_threshold": 0.5},
        "attributes": {"early_stopping_patience_counter": 1, "best_metric": 0.8}
    })"));
    EXPECT_EQ(callback.class_name(), "EarlyStoppingCallback");
    EXPECT_FALSE(callback.state_key().has_value());
}

TEST(EarlyStoppingCallback, FreshStateHasNoBestYet) {
    EXPECT_EQ(EarlyStoppingCallback().state(), json::parse(R"({
        "args": {"early_stopping_patience": 1, "early_stopping_threshold": 0.0},
        "attributes": {"early_stopping_patience_counter": 0, "best_metric": null}
    })"));
}

TEST(EarlyStoppingCallback, RejectsNonsenseArguments) {
    EXPECT_THROW(EarlyStoppingCallback(0), ValueError);
    EXPECT_THROW(EarlyStoppingCallback(-2), ValueError);
    EXPECT_THROW(EarlyStoppingCallback(1, -0.1), ValueError);
    EXPECT_THROW(EarlyStoppingCallback(1, std::nan("")), ValueError);
    EXPECT_THROW(EarlyStoppingCallback(1, std::numeric_limits<double>::infinity()), ValueError);
    try {
        EarlyStoppingCallback(0);
    } catch (const ValueError& error) {
        EXPECT_STREQ(error.what(), "early_stopping_patience must be a positive integer, got 0");
    }
}

TEST(EarlyStoppingCallback, StopsWhenPatienceRunsOut) {
    EarlyStoppingCallback callback(2);
    EXPECT_EQ(first_stop(callback, {0.5, 0.6, 0.6, 0.55}, true), 4);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 2);
    EXPECT_EQ(callback.best_metric(), 0.6);
}

TEST(EarlyStoppingCallback, AnImprovementResetsTheCounter) {
    EarlyStoppingCallback callback(2);
    EXPECT_EQ(first_stop(callback, {0.5, 0.4, 0.7, 0.6, 0.8, 0.1}, true), 0);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 1);
}

TEST(EarlyStoppingCallback, ATieIsNotAnImprovement) {
    EarlyStoppingCallback callback(1);
    EXPECT_EQ(first_stop(callback, {0.5, 0.5}, true), 2);
}

TEST(EarlyStoppingCallback, LowerIsBetterForLosses) {
    EarlyStoppingCallback callback(2);
    EXPECT_EQ(first_stop(callback, {2.0, 1.5, 1.6, 1.4, 1.45, 1.5}, false), 6);
    EXPECT_EQ(callback.best_metric(), 1.4);
}

TEST(EarlyStoppingCallback, ImprovementMustExceedTheThresholdButStillBecomesBest) {
    // Transformers resets only on a gain above the threshold, yet _determine_best_metric
    // records any strict gain as the best; the next gain is measured from there.
    EarlyStoppingCallback callback(3, 0.1);
    TrainerControl control;
    callback.on_evaluate(1.0, true, control);
    callback.on_evaluate(1.05, true, control);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 1);
    EXPECT_EQ(callback.best_metric(), 1.05);
    callback.on_evaluate(1.15, true, control);  // +0.1 over 1.05: not strictly more
    EXPECT_EQ(callback.early_stopping_patience_counter(), 2);
    callback.on_evaluate(1.3, true, control);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 0);
    EXPECT_FALSE(control.should_training_stop);
}

TEST(EarlyStoppingCallback, NonFiniteMetricsCountAgainstPatienceAndAreNeverBest) {
    EarlyStoppingCallback callback(2);
    TrainerControl control;
    EXPECT_FALSE(callback.on_evaluate(std::nan(""), true, control));
    EXPECT_FALSE(callback.best_metric().has_value());
    EXPECT_TRUE(callback.on_evaluate(std::numeric_limits<double>::infinity(), true, control));
    EXPECT_FALSE(callback.best_metric().has_value());
    EXPECT_FALSE(json::parse(callback.state().dump(), nullptr, /*allow_exceptions=*/false).is_discarded());
}

TEST(EarlyStoppingCallback, NeverClearsAStopSetElsewhere) {
    EarlyStoppingCallback callback(5);
    TrainerControl control;
    control.should_training_stop = true;
    EXPECT_FALSE(callback.on_evaluate(1.0, true, control));
    EXPECT_TRUE(control.should_training_stop);
}

TEST(EarlyStoppingCallback, ResumeKeepsTheCounterIssue28544) {
    EarlyStoppingCallback before(3);
    EXPECT_EQ(first_stop(before, {0.9, 0.8, 0.7}, true), 0);
    const json saved = json::parse(before.state().dump());

    EarlyStoppingCallback resumed = EarlyStoppingCallback::from_state(saved);
    EXPECT_EQ(resumed.early_stopping_patience_counter(), 2);
    EXPECT_EQ(first_stop(resumed, {0.85}, true), 1);
}

TEST(EarlyStoppingCallback, SavedArgsOverrideTheConfigurationThenAttributesApply) {
    const json saved = json::parse(R"({
        "args": {"early_stopping_patience": 7, "early_stopping_threshold": 0.25},
        "attributes": {"early_stopping_patience_counter": 4, "best_metric": -1.5}
    })");
    const EarlyStoppingCallback restored = EarlyStoppingCallback::from_state(saved);
    EXPECT_EQ(restored.early_stopping_patience(), 7);
    EXPECT_EQ(restored.early_stopping_threshold(), 0.25);
    EXPECT_EQ(restored.early_stopping_patience_counter(), 4);
    EXPECT_EQ(restored.best_metric(), -1.5);
    EXPECT_EQ(restored.state(), saved);
}

TEST(EarlyStoppingCallback, ReadsStateWrittenByTransformers) {
    // Transformers has no best_metric attribute: the best lives in TrainerState there.
    const EarlyStoppingCallback restored = EarlyStoppingCallback::from_state(json::parse(R"({
        "args": {"early_stopping_patience": 2, "early_stopping_threshold": 0.0},
        "attributes": {"early_stopping_patience_counter": 1}
    })"));
    EXPECT_EQ(restored.early_stopping_patience_counter(), 1);
    EXPECT_FALSE(restored.best_metric().has_value());
    EXPECT_EQ(EarlyStoppingCallback::from_state(json::object()).early_stopping_patience(), 1);
}

// Finding 23: a counter Transformers' own callback saved was counted against
// TrainerState.best_metric. Restored into this callback, it goes on against that best instead of
// finding nothing to beat (which reset it at the first evaluation after the resume).
TEST(EarlyStoppingCallback, RestoredFromTransformersStateItAdoptsTheTrainersBest) {
    const json transformers_state = json::parse(R"({
        "args": {"early_stopping_patience": 2, "early_stopping_threshold": 0.0},
        "attributes": {"early_stopping_patience_counter": 1}
    })");
    EarlyStoppingCallback restored = EarlyStoppingCallback::from_state(transformers_state);
    restored.adopt_trainer_best_metric(0.8);
    EXPECT_EQ(restored.best_metric(), 0.8);
    TrainerControl control;
    EXPECT_TRUE(restored.on_evaluate(0.7, /*greater_is_better=*/true, control));
    EXPECT_EQ(restored.early_stopping_patience_counter(), 2);
    {
        const mutants::MutantScope as_it_was(mutants::Mutant::trainer_best_not_adopted);
        EarlyStoppingCallback old = EarlyStoppingCallback::from_state(transformers_state);
        old.adopt_trainer_best_metric(0.8);
        TrainerControl old_control;
        EXPECT_FALSE(old.on_evaluate(0.7, true, old_control));
        EXPECT_EQ(old.early_stopping_patience_counter(), 0);
    }
    // A state of its own layout keeps its own best, and a fresh callback has none to adopt.
    EarlyStoppingCallback own = EarlyStoppingCallback::from_state(restored.state());
    own.adopt_trainer_best_metric(0.1);
    EXPECT_EQ(own.best_metric(), 0.8);
    EarlyStoppingCallback fresh(2);
    fresh.adopt_trainer_best_metric(0.1);
    EXPECT_FALSE(fresh.best_metric().has_value());
}

TEST(EarlyStoppingCallback, MalformedStateIsAValueError) {
    EXPECT_THROW(EarlyStoppingCallback::from_state(json::array()), ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"args", {{"early_stopping_patience", "3"}}}}),
                 ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"args", {{"early_stopping_patience", 0}}}}), ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"args", {{"early_stopping_threshold", "x"}}}}),
                 ValueError);
    EXPECT_THROW(
        EarlyStoppingCallback::from_state({{"attributes", {{"early_stopping_patience_counter", -1}}}}),
        ValueError);
    EXPECT_THROW(
        EarlyStoppingCallback::from_state({{"attributes", {{"early_stopping_patience_counter", 1.5}}}}),
        ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"attributes", {{"best_metric", "high"}}}}), ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"attributes", json::array()}}), ValueError);
    EXPECT_THROW(EarlyStoppingCallback::from_state({{"state_key", 3}}), ValueError);
}

TEST(EarlyStoppingCallback, GeneratedStateKeyFollowsLightning) {
    EXPECT_EQ(EarlyStoppingCallback::generated_state_key(3, 0.0),
              "EarlyStoppingCallback{'early_stopping_patience': 3, 'early_stopping_threshold': 0.0}");
    EXPECT_EQ(EarlyStoppingCallback::generated_state_key(10, 1e-05),
              "EarlyStoppingCallback{'early_stopping_patience': 10, 'early_stopping_threshold': 1e-05}");
    const auto keyed = EarlyStoppingCallback::with_generated_state_key(2, 0.01);
    EXPECT_EQ(keyed.state_key(),
              "EarlyStoppingCallback{'early_stopping_patience': 2, 'early_stopping_threshold': 0.01}");
}

TEST(EarlyStoppingCallback, FromStateKeepsASavedStateKey) {
    json saved = EarlyStoppingCallback(2).state();
    saved["state_key"] = "on-loss";
    EXPECT_EQ(EarlyStoppingCallback::from_state(saved).state_key(), "on-loss");
}

}  // namespace
}  // namespace ckpt
