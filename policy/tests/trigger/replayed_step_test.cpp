// The replayed-step rule of trigger_callback.hpp, end to end on both FileSystem backends: a lower
// score persisted at step S, a crash, a resume from checkpoint-N < S. The replayed step S is
// neither evaluated nor saved (so patience counts it once) and the next new step is; a seed
// sidecar (unknown last step) and the double_count_replayed_step mutant keep the seed's behaviour.
#include <string>

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
class ReplayedStep : public TriggerCallbackTest<Backend> {
  protected:
    // Patience 2 and a save event every 10 steps: one lower score counted twice would stop the run.
    TriggerCallbackConfig replay_config() const {
        auto config = this->config();
        config.policy = PolicySettings{.patience = 2};
        config.regular_steps = 10;
        return config;
    }

    TriggerCallback begin(TriggerCallback callback) {
        TrainerControl control;
        callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0}, control);
        return callback;
    }

    TrainerControl train_step(TriggerCallback& callback, std::int64_t step, double score) {
        return this->train_save_event(callback, step, score);
    }

    // The first run: best 0.5 at step 10 (checkpoint-10), a lower 0.4 at step 20 that lives
    // only in the sidecar, then a crash. Returns checkpoint-10's callback state.
    json first_run_then_crash() {
        auto callback = begin(this->make(replay_config()));
        train_step(callback, 10, 0.5);
        train_step(callback, 20, 0.4);
        EXPECT_EQ(this->read_json(this->sidecar_path())["last_evaluated_step"], 20);
        return this->read_json(this->at(
            "checkpoint-10/trainer_state.json"))["stateful_callbacks"][std::string(kTriggerCallbackClass)];
    }

    TriggerCallback resume_from(const json& checkpoint_state) {
        return begin(this->from_state(checkpoint_state));
    }
};
TYPED_TEST_SUITE(ReplayedStep, Backends, BackendNames);

TYPED_TEST(ReplayedStep, TheReplayedStepIsNeitherEvaluatedNorSavedAndTheNextStepIs) {
    auto callback = this->resume_from(this->first_run_then_crash());
    EXPECT_EQ(callback.replay_horizon(), 20);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 1);
    const auto trigger_count = callback.trigger_count();

    const auto replayed = this->train_step(callback, 20, 0.4);
    EXPECT_FALSE(replayed.should_save);
    EXPECT_FALSE(replayed.should_evaluate);
    EXPECT_FALSE(callback.pending_checkpoint_evaluation());
    EXPECT_EQ(callback.trigger_count(), trigger_count);
    EXPECT_EQ(callback.policy().state().evaluation_count, 2);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 1);
    EXPECT_FALSE(callback.policy_stop_requested()) << "the lower score at step 20 counted twice";
    EXPECT_FALSE(this->fs().exists(this->at("checkpoint-20")));

    const auto next = this->train_step(callback, 30, 0.45);
    EXPECT_TRUE(next.should_evaluate);
    EXPECT_EQ(callback.trigger_count(), trigger_count + 1);
    EXPECT_EQ(callback.policy().state().evaluation_count, 3);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 2);
    EXPECT_TRUE(callback.policy_stop_requested()) << "two lower scores reach patience 2";
    EXPECT_EQ(this->read_json(this->sidecar_path())["last_evaluated_step"], 30);
}

TYPED_TEST(ReplayedStep, AnEpochEndAtAReplayedStepIsDroppedToo) {
    auto callback = this->resume_from(this->first_run_then_crash());
    const auto epoch_end = native_save_at_epoch_end(callback, 15);
    EXPECT_FALSE(epoch_end.should_save);
    EXPECT_FALSE(epoch_end.should_evaluate);
    EXPECT_FALSE(callback.pending_checkpoint_evaluation());
}

// Finding 19: an epoch end a stop brought forward (TrainerState.epoch not whole) is a save event the
// schedule never makes; below the horizon the restored history cannot have counted it, unless it
// stopped there too, where that evaluation was its last (the horizon itself).
TYPED_TEST(ReplayedStep, AnEpochEndAStopBroughtForwardIsEvaluatedBelowTheHorizon) {
    const auto epoch_end_at = [](TriggerCallback& callback, std::int64_t step, double epoch) {
        TrainerControl control;
        control.should_save = true;
        callback.on_epoch_end({.global_step = step, .epoch = epoch}, control);
        return control;
    };
    const auto checkpoint_state = this->first_run_then_crash();
    {
        auto callback = this->resume_from(checkpoint_state);
        ASSERT_EQ(callback.replay_horizon(), 20);
        EXPECT_TRUE(epoch_end_at(callback, 15, 0.15).should_evaluate) << "a new save event below the horizon";
        EXPECT_TRUE(callback.consume_checkpoint_evaluation());
    }
    {
        auto callback = this->resume_from(checkpoint_state);
        EXPECT_FALSE(epoch_end_at(callback, 20, 0.2).should_evaluate) << "the history's own last evaluation";
    }
    {
        auto callback = this->resume_from(checkpoint_state);
        const MutantScope scope(Mutant::stop_epoch_end_taken_for_replay);
        EXPECT_FALSE(epoch_end_at(callback, 15, 0.15).should_evaluate);
    }
}

TYPED_TEST(ReplayedStep, AUserScheduledEvaluationAtAReplayedStepIsLeftAlone) {
    auto callback = this->resume_from(this->first_run_then_crash());
    TrainerControl control;
    control.should_evaluate = true;  // eval_strategy="steps"
    callback.on_step_end({.global_step = 20}, control);
    EXPECT_TRUE(control.should_evaluate);
    EXPECT_FALSE(control.should_save);
    EXPECT_FALSE(callback.consume_checkpoint_evaluation()) << "it is not a checkpoint evaluation";
}

// Recovery in on_train_begin rewrites the sidecar: it must keep the last counted step, or a
// second crash during the replay would count step 20 again.
TYPED_TEST(ReplayedStep, ASecondCrashDuringTheReplayStillSkipsTheCountedStep) {
    const auto checkpoint_state = this->first_run_then_crash();
    {
        auto interrupted = this->resume_from(checkpoint_state);
        EXPECT_EQ(this->read_json(this->sidecar_path())["last_evaluated_step"], 20);
        this->train_step(interrupted, 20, 0.4);
    }
    auto callback = this->resume_from(checkpoint_state);
    EXPECT_EQ(callback.replay_horizon(), 20);
    const auto replayed = this->train_step(callback, 20, 0.4);
    EXPECT_FALSE(replayed.should_evaluate);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 1);
}

// The seed's sidecar does not say which step it counted last, so nothing is skipped, as the seed.
TYPED_TEST(ReplayedStep, AVersionOneSidecarSkipsNothing) {
    const auto checkpoint_state = this->first_run_then_crash();
    auto sidecar = this->read_json(this->sidecar_path());
    this->write_sidecar({{"version", 1}, {"checkpoint_eval_state", sidecar["checkpoint_eval_state"]}});
    auto callback = this->resume_from(checkpoint_state);
    EXPECT_EQ(callback.policy().state().evaluation_count, 2) << "the version 1 sidecar is adopted";
    EXPECT_EQ(callback.replay_horizon(), std::nullopt);
    const auto replayed = this->train_step(callback, 20, 0.4);
    EXPECT_TRUE(replayed.should_evaluate);
    EXPECT_TRUE(callback.policy_stop_requested());
}

TYPED_TEST(ReplayedStep, ANullLastEvaluatedStepSkipsNothing) {
    const auto checkpoint_state = this->first_run_then_crash();
    auto sidecar = this->read_json(this->sidecar_path());
    sidecar["last_evaluated_step"] = nullptr;
    this->write_sidecar(sidecar);
    auto callback = this->resume_from(checkpoint_state);
    EXPECT_EQ(callback.replay_horizon(), std::nullopt);
    EXPECT_TRUE(this->train_step(callback, 20, 0.4).should_evaluate);
}

// Without an adopted sidecar the checkpoint's own state never counted a step after it.
TYPED_TEST(ReplayedStep, RestoringFromTheCheckpointAloneSkipsNothing) {
    const auto checkpoint_state = this->first_run_then_crash();
    this->fs().unlink(this->sidecar_path());
    auto callback = this->resume_from(checkpoint_state);
    EXPECT_EQ(callback.policy().state().evaluation_count, 1);
    EXPECT_EQ(callback.replay_horizon(), std::nullopt);
    EXPECT_TRUE(this->train_step(callback, 20, 0.4).should_evaluate);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 1);
}

TYPED_TEST(ReplayedStep, TheMutantEvaluatesTheReplayedStepAgain) {
    const auto checkpoint_state = this->first_run_then_crash();
    const MutantScope scope(Mutant::double_count_replayed_step);
    auto callback = this->resume_from(checkpoint_state);
    const auto replayed = this->train_step(callback, 20, 0.4);
    EXPECT_TRUE(replayed.should_evaluate);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 2);
    EXPECT_TRUE(callback.policy_stop_requested()) << "the seed's double count stops at patience 2";
}

// Every rank must skip the same save events, so rank 0 shares the last counted step with the
// restored state; an outcome without it (unknown) skips nothing.
TYPED_TEST(ReplayedStep, ANonZeroRankTakesTheLastCountedStepFromRankZero) {
    CheckpointEvaluationPolicy restored(PolicySettings{.patience = 2});
    observe_every_ten_steps(restored, {0.5, 0.4});
    for (const auto& [outcome, horizon] :
         {std::pair(json{{"ok", true},
                         {"loaded", true},
                         {"policy_state", restored.state_dict()},
                         {"last_evaluated_step", 20}},
                    std::optional<std::int64_t>(20)),
          std::pair(json{{"ok", true}, {"loaded", true}, {"policy_state", restored.state_dict()}},
                    std::optional<std::int64_t>())}) {
        ForbiddenFileSystem forbidden;
        ScriptedRankOneCollective collective;
        collective.rank_zero_outcomes = {outcome, json{{"ok", true}}};
        TriggerCallback callback(this->replay_config(), forbidden, collective);
        TrainerControl control;
        callback.on_train_begin({.output_dir = this->root()},
                                {.global_step = 10, .is_world_process_zero = false}, control);
        EXPECT_EQ(callback.replay_horizon(), horizon);
        EXPECT_EQ(callback.last_evaluated_step(), horizon);
        EXPECT_EQ(native_save_at_step_end(callback, 20).should_evaluate, !horizon.has_value());
    }
}

TYPED_TEST(ReplayedStep, ANonZeroRankRefusesAMalformedLastCountedStep) {
    ForbiddenFileSystem forbidden;
    ScriptedRankOneCollective collective;
    collective.rank_zero_outcomes = {
        json{{"ok", true},
             {"loaded", true},
             {"policy_state", CheckpointEvaluationPolicy(PolicySettings{.patience = 2}).state_dict()},
             {"last_evaluated_step", "20"}}};
    TriggerCallback callback(this->replay_config(), forbidden, collective);
    TrainerControl control;
    EXPECT_THAT(
        [&] {
            callback.on_train_begin({.output_dir = this->root()}, {.is_world_process_zero = false}, control);
        },
        ::testing::ThrowsMessage<RuntimeError>(::testing::StrEq(
            "checkpoint evaluation sidecar policy restore received no valid last evaluated step")));
}

}  // namespace
}  // namespace ckpt::testing
