// The port's on_train_begin refusals against P14's restatement of the rules (refusal_checker.hpp's
// due_refusal), over every combination of the settings either reads. The swarm reaches some of
// them rarely (metric_for_best_model="score" with greater_is_better=False, about one scenario in
// 400), so a rule the port got wrong there would wait long for a seed; here each one is met.
#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "policy/ports/collective.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "sim/checks/refusal_checker.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {
namespace {

constexpr const char* kStatefulClass = "EarlyStoppingCallback";

struct Combination {
    TrainerOptions trainer;
    bool several_of_one_class = false;
    bool checkpoint_lacks_a_class = false;
};

// TrainingArguments as the simulated trainer hands them to on_train_begin (after post-init),
// restated here from the scenario's meaning.
TrainingArguments training_arguments(const Combination& c) {
    TrainingArguments args;
    args.output_dir = "/run/output";
    args.save_strategy = std::string(kSaveStrategyNames.name(c.trainer.save_strategy));
    args.save_total_limit = c.trainer.save_total_limit;
    args.metric_for_best_model = c.trainer.tracked_metric();
    args.load_best_model_at_end = c.trainer.load_best_model_at_end;
    args.greater_is_better = c.trainer.tracked_greater_is_better();
    args.eval_strategy = std::string(kEvalStrategyNames.name(c.trainer.eval_strategy));
    args.restore_callback_states_from_checkpoint = c.trainer.restore_callback_states_from_checkpoint;
    args.refresh_appends_duplicate_states =
        c.trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append;
    if (c.several_of_one_class) {
        args.stateful_classes_with_several_callbacks.emplace_back(kStatefulClass);
    }
    if (c.checkpoint_lacks_a_class) {
        args.stateful_classes_the_checkpoint_lacks.emplace_back(kStatefulClass);
    }
    return args;
}

// The port's verdict: the setting its refusal leads with ("... cannot run with <setting>=...",
// "... cannot resume with <class> ..."), "" when it accepts.
std::string ports_refusal(const Combination& c) {
    SimFileSystem fs;
    SingleProcessCollective collective;
    TriggerCallbackConfig config;
    config.output_dir = "/run/output";
    TriggerCallback callback(std::move(config), fs, collective);
    TrainerControl control;
    try {
        callback.on_train_begin(training_arguments(c), {.global_step = 0}, control);
    } catch (const TrainingArgumentsRefused& refused) {
        const std::string_view error = refused.what();
        const auto leading = leading_setting(error);  // P14's reading of a refusal
        return leading ? std::string(*leading) : "(unrecognised) " + std::string(error);
    }
    return "";
}

template <typename Visit>
void for_each_combination(Visit visit) {
    Combination c;
    for (const auto save_strategy : {SaveStrategy::steps, SaveStrategy::epoch, SaveStrategy::best}) {
        c.trainer.save_strategy = save_strategy;
        for (const char* metric : {"", "score", "loss"}) {
            c.trainer.metric_for_best_model = metric;
            for (const auto greater : {std::optional<bool>(), std::optional(true), std::optional(false)}) {
                c.trainer.greater_is_better = greater;
                for (const bool load_best : {false, true}) {
                    c.trainer.load_best_model_at_end = load_best;
                    for (const std::int64_t limit : {1, 2, 3}) {
                        c.trainer.save_total_limit = limit;
                        for (const auto eval : {EvalStrategy::no, EvalStrategy::steps}) {
                            c.trainer.eval_strategy = eval;
                            for (const int flags : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
                                c.trainer.restore_callback_states_from_checkpoint = (flags & 1) != 0;
                                c.trainer.stateful_callbacks_refresh =
                                    (flags & 2) != 0 ? StatefulCallbacksRefresh::append
                                                     : StatefulCallbacksRefresh::replace;
                                c.several_of_one_class = (flags & 4) != 0;
                                c.checkpoint_lacks_a_class = (flags & 8) != 0;
                                visit(c);
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST(RefusalRules, ThePortRefusesExactlyWhatP14Restates) {
    int combinations = 0;
    int refused = 0;
    for_each_combination([&](const Combination& c) {
        ++combinations;
        const std::string due(due_refusal(c.trainer, c.several_of_one_class, c.checkpoint_lacks_a_class));
        const auto verdict = ports_refusal(c);
        refused += verdict.empty() ? 0 : 1;
        EXPECT_EQ(verdict, due)
            << "save_strategy " << kSaveStrategyNames.name(c.trainer.save_strategy) << ", metric '"
            << c.trainer.metric_for_best_model << "', greater_is_better "
            << (c.trainer.greater_is_better ? (*c.trainer.greater_is_better ? "True" : "False") : "None")
            << ", load_best " << c.trainer.load_best_model_at_end << ", limit " << c.trainer.save_total_limit
            << ", eval " << kEvalStrategyNames.name(c.trainer.eval_strategy) << ", restore "
            << c.trainer.restore_callback_states_from_checkpoint << ", appends "
            << (c.trainer.stateful_callbacks_refresh == StatefulCallbacksRefresh::append) << ", several "
            << c.several_of_one_class << ", lacks " << c.checkpoint_lacks_a_class;
    });
    EXPECT_EQ(combinations, 3 * 3 * 3 * 2 * 3 * 2 * 16);
    // Both verdicts occur often: the comparison is not between two always-empty answers.
    EXPECT_GT(refused, combinations / 4);
    EXPECT_LT(refused, combinations);
}

}  // namespace
}  // namespace ckpt::sim
