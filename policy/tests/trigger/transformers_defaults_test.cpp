// The callback under Transformers' defaults (issue 11), on both FileSystem backends: with
// restore_callback_states_from_checkpoint=False the Trainer restores no callback state, so the
// callback takes its own from the resume checkpoint; and since Transformers never fsyncs a
// checkpoint, the callback makes it durable before final_checkpoint may name it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"
#include "policy/trigger/evaluation_round.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::testing {
namespace {

using mutants::Mutant;
using mutants::MutantScope;

template <typename Backend>
class TransformersDefaults : public TriggerCallbackTest<Backend> {
  protected:
    TriggerCallbackConfig every_ten_steps() const {
        auto config = this->config();
        config.regular_steps = 10;
        return config;
    }

    void train_step(TriggerCallback& callback, std::int64_t step, double score) {
        this->train_save_event(callback, step, score);
    }

    // Two improving saves (checkpoint-10, checkpoint-20), then the sidecar is lost: only the
    // checkpoint still holds the callback's state.
    void first_run_then_lose_the_sidecar() {
        auto callback = this->make(every_ten_steps());
        TrainerControl control;
        callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0}, control);
        train_step(callback, 10, 0.5);
        train_step(callback, 20, 0.6);
        this->fs().unlink(this->sidecar_path());
    }

    // A resumed Trainer that restored nothing: the callback is as configured, global_step = 20.
    TriggerCallback resume_as_configured() {
        auto callback = this->make(every_ten_steps());
        TrainerControl control;
        callback.on_train_begin({.output_dir = this->root()}, {.global_step = 20}, control);
        return callback;
    }
};
TYPED_TEST_SUITE(TransformersDefaults, Backends, BackendNames);

TYPED_TEST(TransformersDefaults, ACallbackTheTrainerDidNotRestoreTakesItsStateFromTheResumeCheckpoint) {
    this->first_run_then_lose_the_sidecar();
    const auto callback = this->resume_as_configured();
    EXPECT_TRUE(callback.state_restored());
    EXPECT_EQ(callback.policy().state().best_step, 20);
    EXPECT_EQ(callback.policy().state().best_score, 0.6);
    EXPECT_EQ(callback.trigger_count(), 2);
}

TYPED_TEST(TransformersDefaults, AResumeWithAChangedSettingRefusesNamingItBothValuesAndTheFix) {
    this->first_run_then_lose_the_sidecar();
    auto config = this->every_ten_steps();
    const auto saved_patience = config.policy.patience;
    config.policy.patience = saved_patience + 2;
    auto callback = this->make(config);
    TrainerControl control;
    std::string error;
    try {
        callback.on_train_begin({.output_dir = this->root()}, {.global_step = 20}, control);
    } catch (const std::exception& refused) {
        error = refused.what();
    }
    EXPECT_NE(error.find("with a changed patience"), std::string::npos) << error;
    EXPECT_NE(error.find("saved with patience=" + std::to_string(saved_patience)), std::string::npos)
        << error;
    EXPECT_NE(error.find("configured with patience=" + std::to_string(saved_patience + 2)), std::string::npos)
        << error;
    EXPECT_NE(error.find("fresh output_dir"), std::string::npos) << error;
    EXPECT_FALSE(callback.policy().state().best_step.has_value());  // nothing was adopted
}

TYPED_TEST(TransformersDefaults, TheMutantLeavesItToTheTrainerAndStartsFromNothing) {
    this->first_run_then_lose_the_sidecar();
    const MutantScope scope(Mutant::callback_state_left_to_trainer);
    const auto callback = this->resume_as_configured();
    EXPECT_FALSE(callback.state_restored());
    EXPECT_FALSE(callback.policy().state().best_step.has_value());
}

TYPED_TEST(TransformersDefaults, AFreshStartRestoresNothing) {
    auto callback = this->make(this->every_ten_steps());
    TrainerControl control;
    callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0}, control);
    EXPECT_FALSE(callback.state_restored());
}

TYPED_TEST(TransformersDefaults, EveryCheckpointFileIsFsyncedBeforeTheLinkNamesIt) {
    RecordingFileSystem recording(this->fs());
    TriggerCallback callback(this->every_ten_steps(), recording, this->collective_);
    TrainerControl control;
    callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0}, control);
    callback.on_step_end({.global_step = 10}, control);
    ASSERT_TRUE(callback.consume_checkpoint_evaluation());
    EvaluationRoundObserver quiet;
    run_checkpoint_evaluation_round(this->collective_, callback, control, 0.5, 10, quiet);
    ASSERT_TRUE(control.should_save);
    write_checkpoint(this->fs(), this->root(), 10, callback.state());  // no fsync, as Transformers
    recording.calls.clear();
    callback.on_save({.global_step = 10}, control);

    const auto calls = recording.only({"fsync_file", "fsync_dir", "symlink"});
    const auto position = [&](const std::string& call) {
        return std::find(calls.begin(), calls.end(), call) - calls.begin();
    };
    const auto directory = this->at("checkpoint-10");
    const auto link = std::find_if(calls.begin(), calls.end(),
                                   [](const std::string& call) { return call.rfind("symlink ", 0) == 0; }) -
                      calls.begin();
    ASSERT_LT(link, static_cast<std::ptrdiff_t>(calls.size())) << "no link published";
    for (const auto* name : {"model.safetensors", "trainer_state.json"}) {
        EXPECT_LT(position("fsync_file " + join_path(directory, name)), link) << name;
    }
    EXPECT_LT(position("fsync_dir " + directory), link);
}

// The settings no callback can be correct under are refused at on_train_begin, naming the fix.
TYPED_TEST(TransformersDefaults, SaveStrategyBestIsRefusedAtTrainBegin) {
    auto callback = this->make(this->every_ten_steps());
    TrainerControl control;
    TrainingArguments args{.output_dir = this->root()};
    args.save_strategy = "best";
    try {
        callback.on_train_begin(args, {.global_step = 0}, control);
        FAIL() << "save_strategy=best was accepted";
    } catch (const ValueError& error) {
        EXPECT_NE(std::string(error.what()).find("save_strategy=\"steps\""), std::string::npos)
            << error.what();
    }
}

TYPED_TEST(TransformersDefaults, KeepingOneCheckpointBesideATrainerBestIsRefusedAtTrainBegin) {
    for (const bool load_best : {true, false}) {
        auto callback = this->make(this->every_ten_steps());
        TrainerControl control;
        TrainingArguments args{.output_dir = this->root()};
        args.save_total_limit = 1;
        args.load_best_model_at_end = load_best;
        args.metric_for_best_model = load_best ? "" : "eval_accuracy";
        EXPECT_THROW(callback.on_train_begin(args, {.global_step = 0}, control), ValueError) << load_best;
    }
    auto callback = this->make(this->every_ten_steps());
    TrainerControl control;
    TrainingArguments args{.output_dir = this->root()};
    args.save_total_limit = 2;
    args.load_best_model_at_end = true;
    args.metric_for_best_model = "score";  // the callback's own metric, higher is better
    EXPECT_NO_THROW(callback.on_train_begin(args, {.global_step = 0}, control));
}

// Finding 24: the trainer's own evaluations can leave best_model_checkpoint on an older checkpoint;
// rotation under a limit of 2 keeps it and the newest, not final_checkpoint's target. A limit of 3,
// or no evaluations of the trainer's own, is accepted.
TYPED_TEST(TransformersDefaults, ALimitOfTwoBesideTheTrainersOwnEvaluationsAndBestIsRefused) {
    const auto train_begin = [&](std::int64_t limit, const char* eval_strategy) {
        auto callback = this->make(this->every_ten_steps());
        TrainerControl control;
        TrainingArguments args{.output_dir = this->root()};
        args.save_total_limit = limit;
        args.metric_for_best_model = "score";
        args.eval_strategy = eval_strategy;
        callback.on_train_begin(args, {.global_step = 0}, control);
    };
    for (const char* eval_strategy : {"steps", "epoch"}) {
        try {
            train_begin(2, eval_strategy);
            FAIL() << "a limit of 2 beside eval_strategy=" << eval_strategy << " was accepted";
        } catch (const TrainingArgumentsRefused& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("save_total_limit=2"), std::string::npos) << message;
            EXPECT_NE(message.find("save_total_limit >= 3"), std::string::npos) << message;
        }
        EXPECT_NO_THROW(train_begin(3, eval_strategy)) << eval_strategy;
    }
    EXPECT_NO_THROW(train_begin(2, "no"));
}

// A Trainer best on another metric, or lower-is-better, keeps another checkpoint alive in
// rotation, and a crash can make the callback relink final_checkpoint to it (swarm seed 10193).
TYPED_TEST(TransformersDefaults, ATrainerBestThatCanDisagreeIsRefusedAtTrainBegin) {
    for (const bool greater : {true, false}) {
        auto callback = this->make(this->every_ten_steps());
        TrainerControl control;
        TrainingArguments args{.output_dir = this->root()};
        args.save_total_limit = 3;
        args.metric_for_best_model = greater ? "loss" : "score";
        args.greater_is_better = greater;
        EXPECT_THROW(callback.on_train_begin(args, {.global_step = 0}, control), TrainingArgumentsRefused)
            << greater;
    }
}

// A resume that configures a stateful callback class its checkpoint does not store: Transformers'
// appending refresh raises KeyError on rank 0 at the first save while the other ranks wait, so the
// resume is refused at on_train_begin, on every rank, naming the class and both fixes. The port's
// own refresh (which re-exports the dict) needs no refusal.
TYPED_TEST(TransformersDefaults, ResumingWithAClassTheCheckpointLacksIsRefusedWhileTheRefreshAppends) {
    for (const bool appends : {true, false}) {
        auto callback = this->make(this->every_ten_steps());
        TrainingArguments args{.output_dir = this->root()};
        args.refresh_appends_duplicate_states = appends;
        args.stateful_classes_the_checkpoint_lacks = {"EarlyStoppingCallback"};
        TrainerControl control;
        if (!appends) {
            EXPECT_NO_THROW(callback.on_train_begin(args, {.global_step = 10}, control));
            continue;
        }
        try {
            callback.on_train_begin(args, {.global_step = 10}, control);
            FAIL() << "a resume the appending refresh fails at its first save was accepted";
        } catch (const TrainingArgumentsRefused& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("EarlyStoppingCallback callbacks the checkpoint does not store"),
                      std::string::npos)
                << message;
            EXPECT_NE(message.find("refresh_stateful_callbacks"), std::string::npos) << message;
        }
    }
}

// Several callbacks of one class with Transformers restoring them: every save appends their
// states (PR #33875), so a resume would restore the ones from train start. Refused before any
// state exists; either half of the configuration alone is accepted.
TYPED_TEST(TransformersDefaults, RestoringSeveralCallbacksOfOneClassIsRefusedWhileTheRefreshAppends) {
    const auto args_for = [&](bool restore, bool appends, bool several) {
        TrainingArguments args{.output_dir = this->root()};
        args.restore_callback_states_from_checkpoint = restore;
        args.refresh_appends_duplicate_states = appends;
        if (several) {
            args.stateful_classes_with_several_callbacks = {"EarlyStoppingCallback"};
        }
        return args;
    };
    {
        auto callback = this->make(this->every_ten_steps());
        TrainerControl control;
        try {
            callback.on_train_begin(args_for(true, true, true), {.global_step = 0}, control);
            FAIL() << "restoring appended duplicate states was accepted";
        } catch (const TrainingArgumentsRefused& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("restore_callback_states_from_checkpoint=False"), std::string::npos)
                << message;
            EXPECT_NE(message.find("EarlyStoppingCallback"), std::string::npos) << message;
        }
    }
    for (const auto& [restore, appends, several] :
         {std::tuple{false, true, true}, std::tuple{true, false, true}, std::tuple{true, true, false}}) {
        auto callback = this->make(this->every_ten_steps());
        TrainerControl control;
        EXPECT_NO_THROW(
            callback.on_train_begin(args_for(restore, appends, several), {.global_step = 0}, control))
            << restore << appends << several;
    }
}

}  // namespace
}  // namespace ckpt::testing
