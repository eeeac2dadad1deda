// `ckptsim inspect --training-args`: each configuration issue 11 models is reported, the ones the
// callback refuses or ckptsim proves unsafe as at risk with their properties, and a field of the
// wrong type is a ValueError naming it.
#include "policy/inspect/training_args_risks.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"

namespace ckpt {
namespace {

const TrainingArgsFinding* find(const TrainingArgsReport& report, std::string_view setting_part) {
    const auto found = std::find_if(report.findings.begin(), report.findings.end(), [&](const auto& finding) {
        return finding.setting.find(setting_part) != std::string::npos;
    });
    return found == report.findings.end() ? nullptr : &*found;
}
// A finding points into its report, so a temporary report would leave it dangling.
const TrainingArgsFinding* find(TrainingArgsReport&& report, std::string_view setting_part) = delete;

TEST(TrainingArgsRisks, RestoringSeveralCallbacksOfOneClassIsAtRiskForP10) {
    const auto report = assess_training_args(
        {{"restore_callback_states_from_checkpoint", true},
         {"callbacks",
          {"EarlyStoppingCallback", "CheckpointEvaluationTriggerCallback", "EarlyStoppingCallback"}}});
    const auto* finding = find(report, "several EarlyStoppingCallback");
    ASSERT_NE(finding, nullptr);
    EXPECT_FALSE(finding->safe);
    EXPECT_EQ(finding->properties, "P10");
    EXPECT_NE(find(report, "end of the callback list"), nullptr);
}

TEST(TrainingArgsRisks, SeveralCallbacksOfOneClassAreSafeWhenTheTrainerRestoresNone) {
    const auto report =
        assess_training_args({{"callbacks", {"EarlyStoppingCallback", "EarlyStoppingCallback"}}});
    const auto* finding = find(report, "several EarlyStoppingCallback");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(finding->safe);
    EXPECT_EQ(find(report, "end of the callback list"), nullptr);
}

TEST(TrainingArgsRisks, MtimeRotationIsReportedSafe) {
    // The report must outlive the finding that points into it (AddressSanitizer caught a
    // temporary here; the deleted overload above keeps it from coming back).
    const auto report = assess_training_args(nlohmann::json::object());
    const auto* finding = find(report, "use_mtime=True");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(finding->safe);
}

// Issue 11 row 7: the two refusals are reported at risk; a tracked best with room to keep it is safe.
TEST(TrainingArgsRisks, TrainerBestRefusalsAreReportedAndTheRestIsSafe) {
    auto report = assess_training_args({{"metric_for_best_model", "eval_loss"}, {"save_total_limit", 1}});
    const auto* refused = find(report, "save_total_limit=1 with metric_for_best_model");
    ASSERT_NE(refused, nullptr);
    EXPECT_FALSE(refused->safe);
    EXPECT_EQ(refused->properties, "P1, P4");
    report = assess_training_args({{"metric_for_best_model", "eval_score"}, {"save_total_limit", 3}});
    const auto* kept = find(report, "metric_for_best_model / load_best_model_at_end");
    ASSERT_NE(kept, nullptr);
    EXPECT_TRUE(kept->safe);
    report = assess_training_args({{"load_best_model_at_end", true}, {"save_total_limit", 3}});
    const auto* lower = find(report, "lower is better");
    ASSERT_NE(lower, nullptr);
    EXPECT_FALSE(lower->safe);
    report = assess_training_args(
        {{"metric_for_best_model", "eval_score"}, {"save_total_limit", 2}, {"eval_strategy", "steps"}});
    const auto* stale = find(report, "save_total_limit=2 with eval_strategy");
    ASSERT_NE(stale, nullptr);  // finding 24
    EXPECT_FALSE(stale->safe);
    EXPECT_EQ(stale->properties, "P4");
    report = assess_training_args({{"save_strategy", "best"}});
    ASSERT_NE(find(report, "save_strategy=best"), nullptr);
    EXPECT_FALSE(find(report, "save_strategy=best")->safe);
}

TEST(TrainingArgsRisks, ACallbackListOfTheWrongTypeNamesTheField) {
    try {
        assess_training_args({{"callbacks", "EarlyStoppingCallback"}});
        FAIL() << "accepted";
    } catch (const ValueError& error) {
        EXPECT_NE(std::string(error.what()).find("'callbacks'"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace ckpt
