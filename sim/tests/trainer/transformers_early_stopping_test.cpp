// Transformers' own EarlyStoppingCallback, restated: its on_train_begin assertions, its
// comparison with TrainerState.best_metric (not a best of its own) through the threshold, and its
// counter-only state, rebuilt from the saved arguments.
#include "sim/trainer/transformers_early_stopping.hpp"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ckpt::sim {
namespace {

using nlohmann::json;

TrainerOptions tracking(const char* metric) {
    TrainerOptions args;
    args.metric_for_best_model = metric;
    args.eval_strategy = EvalStrategy::steps;
    return args;
}

// The assertion's message for `args`, or "" when on_train_begin lets them through.
std::string assertion_for(const TrainerOptions& args) {
    try {
        TransformersEarlyStopping::on_train_begin(args);
    } catch (const TransformersAssertionError& error) {
        return error.what();
    }
    return "";
}

TEST(TransformersEarlyStopping, OnTrainBeginAssertsAMetricAndEvaluations) {
    TrainerOptions args;  // Transformers' defaults: no metric, eval_strategy "no"
    EXPECT_EQ(assertion_for(args), "EarlyStoppingCallback requires metric_for_best_model to be defined");
    args.metric_for_best_model = "score";
    EXPECT_EQ(assertion_for(args), "EarlyStoppingCallback requires IntervalStrategy of steps or epoch");
    args.eval_strategy = EvalStrategy::epoch;
    EXPECT_NO_THROW(TransformersEarlyStopping::on_train_begin(args));
    // Post-init tracks "loss" under load_best_model_at_end: the metric is then set.
    TrainerOptions best_at_end;
    best_at_end.load_best_model_at_end = true;
    best_at_end.eval_strategy = EvalStrategy::steps;
    EXPECT_NO_THROW(TransformersEarlyStopping::on_train_begin(best_at_end));
}

TEST(TransformersEarlyStopping, ComparesWithTheTrainersBestMetricThroughTheThreshold) {
    const auto args = tracking("score");
    TransformersEarlyStopping callback(/*early_stopping_patience=*/3, /*early_stopping_threshold=*/0.05);
    TrainerControl control;
    // No best yet: a reset, whatever the metric.
    EXPECT_FALSE(callback.on_evaluate({0.1, args, std::nullopt}, control));
    EXPECT_EQ(callback.early_stopping_patience_counter(), 0);
    // Better than the trainer's best, but not by more than the threshold: counts.
    EXPECT_FALSE(callback.on_evaluate({0.54, args, 0.5}, control));
    EXPECT_EQ(callback.early_stopping_patience_counter(), 1);
    // Better by more than the threshold: a reset. Its own earlier metrics play no part.
    EXPECT_FALSE(callback.on_evaluate({0.56, args, 0.5}, control));
    EXPECT_EQ(callback.early_stopping_patience_counter(), 0);
    // The same metric against a best that moved on without it (an evaluation it was not
    // told of, or a resumed trainer_state.json): counts.
    EXPECT_FALSE(callback.on_evaluate({0.56, args, 0.9}, control));
    EXPECT_FALSE(callback.on_evaluate({0.56, args, 0.9}, control));
    EXPECT_FALSE(control.should_training_stop);
    EXPECT_TRUE(callback.on_evaluate({0.9, args, 0.9}, control));
    EXPECT_EQ(callback.early_stopping_patience_counter(), 3);
    EXPECT_TRUE(control.should_training_stop);
}

TEST(TransformersEarlyStopping, TheLossIsTheScoresNegationAndLowerIsBetter) {
    const auto args = tracking("loss");  // greater_is_better unset: post-init's False
    TransformersEarlyStopping callback(2, 0.0);
    TrainerControl control;
    // Score 0.7 reports eval_loss -0.7, below the best loss -0.6: an improvement.
    callback.on_evaluate({0.7, args, -0.6}, control);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 0);
    callback.on_evaluate({0.5, args, -0.7}, control);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 1);
    auto greater = args;
    greater.greater_is_better = true;  // a loss the user says is better higher
    callback.on_evaluate({0.5, greater, -0.7}, control);
    EXPECT_EQ(callback.early_stopping_patience_counter(), 0);
}

TEST(TransformersEarlyStopping, SavesOnlyItsCounterAndIsRebuiltFromTheSavedArguments) {
    TransformersEarlyStopping callback(4, 0.25);
    TrainerControl control;
    callback.on_evaluate({0.1, tracking("score"), 0.5}, control);
    const json expected = {
        {"args", {{"early_stopping_patience", 4}, {"early_stopping_threshold", 0.25}}},
        {"attributes", {{"early_stopping_patience_counter", 1}}},
    };
    EXPECT_EQ(callback.state(), expected);
    // type(cb)(**args), then setattr: the saved arguments win, silently.
    const auto rebuilt = TransformersEarlyStopping::rebuilt(expected);
    EXPECT_EQ(rebuilt.early_stopping_patience(), 4);
    EXPECT_EQ(rebuilt.early_stopping_threshold(), 0.25);
    EXPECT_EQ(rebuilt.early_stopping_patience_counter(), 1);
    EXPECT_EQ(rebuilt.state(), expected);
}

TEST(TransformersEarlyStopping, ASavedArgumentInitDoesNotTakeFailsAsPythonsTypeError) {
    const json saved = {
        {"args", {{"early_stopping_patience", 4}, {"early_stopping_thresholdd", 0.25}}},
        {"attributes", {{"early_stopping_patience_counter", 1}}},
    };
    try {
        (void)TransformersEarlyStopping::rebuilt(saved);
        ADD_FAILURE() << "an unexpected keyword argument was accepted";
    } catch (const std::invalid_argument& error) {
        EXPECT_STREQ(error.what(),
                     "EarlyStoppingCallback.__init__() got an unexpected keyword argument "
                     "'early_stopping_thresholdd'");
    }
}

}  // namespace
}  // namespace ckpt::sim
