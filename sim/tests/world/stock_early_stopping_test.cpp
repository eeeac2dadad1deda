// Transformers' own EarlyStoppingCallback in the simulated trainer, on scenarios worked out on
// paper: 100 steps in one epoch, a save event every 10 steps, which the trigger callback turns
// into an evaluation at steps 10, 20, ..., 100, with a patience of its own that outlasts the run.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/tests/support/scenario_runs.hpp"

namespace ckpt::sim {
namespace {

using testing::describe;
using testing::events;
using testing::run;

Scenario with_stock_early_stopping(std::vector<double> script) {
    Scenario s;
    s.seed = 11;
    s.trainer.max_steps = 100;
    s.trainer.steps_per_epoch = 100;
    s.trainer.save_steps = 10;
    s.trainer.save_total_limit = 3;  // beside the trainer's own evaluations, 2 is refused (finding 24)
    s.callbacks.policy.patience = 50;
    s.callbacks.policy.patience_start_step = 0;
    s.callbacks.early_stopping_callbacks = 1;
    s.callbacks.early_stopping_callback = EarlyStoppingCallbackKind::transformers;
    s.callbacks.early_stopping_patience = 2;
    s.callbacks.early_stopping_threshold = 0.0;
    s.score.kind = ScoreKind::scripted;
    s.score.script = std::move(script);
    return s;
}

// Transformers' defaults (no metric_for_best_model, eval_strategy "no") beside its callback: every
// launch asserts on every rank before a step, and the user sets what each message names. The
// trigger callback then refuses the tracked best beside save_total_limit=1, fixed the same way,
// and the limit of 2 that fixed it once evaluations are on (finding 24).
TEST(StockEarlyStopping, ItsAssertionsEndEachLaunchUntilTheArgumentsAreFixed) {
    auto s = with_stock_early_stopping({0.5});
    s.job.ranks = 2;
    s.trainer.save_total_limit = 1;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    std::vector<std::string> fixes;
    for (const auto& fix : events(result, "restart_with_fix")) {
        fixes.push_back(fix.at("fix").get<std::string>());
    }
    EXPECT_EQ(fixes, (std::vector<std::string>{"metric_for_best_model=score", "save_total_limit=2",
                                               "eval_strategy=steps", "save_total_limit=3"}));
    EXPECT_EQ(result.stats.incarnations, 5U);
}

// It compares each score with the trainer's best_metric: 0.5 (none yet: reset), 0.7 (better: reset),
// 0.6 and 0.65 (below 0.7: 1, then 2 = patience). Training stops after step 40's evaluation.
TEST(StockEarlyStopping, StopsWhenTheTrainersBestHasNotMovedForPatienceEvaluations) {
    auto s = with_stock_early_stopping({0.5, 0.7, 0.6, 0.65, 0.55, 0.9});
    s.trainer.metric_for_best_model = "score";
    s.trainer.eval_strategy = EvalStrategy::steps;
    s.trainer.eval_steps = 10;
    const auto result = run(s);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.outcome, Outcome::finished) << describe(result);
    const auto evaluations = events(result, "evaluation");
    ASSERT_FALSE(evaluations.empty());
    EXPECT_EQ(evaluations.back().at("step"), 40) << describe(result);
    // Transformers' standard setup tracks the loss: the trigger callback refuses it beside
    // save_total_limit, its user tracks the score as the message says, and the run stops alike.
    s.trainer.metric_for_best_model = "loss";
    const auto by_loss = run(s);
    EXPECT_TRUE(by_loss.ok()) << describe(by_loss);
    const auto fixes = events(by_loss, "restart_with_fix");
    ASSERT_EQ(fixes.size(), 1U) << describe(by_loss);
    EXPECT_EQ(fixes[0].at("fix"), "metric_for_best_model=score");
    EXPECT_EQ(events(by_loss, "evaluation").back().at("step"), 40) << describe(by_loss);
}

}  // namespace
}  // namespace ckpt::sim
