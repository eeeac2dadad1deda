// TriggerCallback::on_save: the commit of a new best after the native checkpoint write, the
// final_checkpoint link (atomic, relative, pruning with save_total_limit) and the sidecar.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::testing {
namespace {

template <typename Backend>
class TriggerCallbackSave : public TriggerCallbackTest<Backend> {
  protected:
    // A callback whose policy just decided to save `step` with `score`: the state in which
    // Transformers calls _save_checkpoint and then on_save.
    TriggerCallback deciding_to_save(std::int64_t step, double score, TriggerCallbackConfig config,
                                     FileSystem& fs, Collective& collective) {
        TriggerCallback callback(std::move(config), fs, collective);
        callback.record_checkpoint_evaluation_decision(callback.policy().observe(score, step));
        return callback;
    }
    TriggerCallback deciding_to_save(std::int64_t step, double score, TriggerCallbackConfig config) {
        return deciding_to_save(step, score, std::move(config), this->fs(), this->collective_);
    }
    TriggerCallback deciding_to_save(std::int64_t step, double score) {
        return deciding_to_save(step, score, this->config());
    }

    // A save as Transformers performs it: _save_checkpoint writes checkpoint-<step>, holding the
    // callback's state, and then calls on_save.
    void save(TriggerCallback& callback, std::int64_t step) {
        write_checkpoint(this->fs(), this->root(), step, callback.state());
        TrainerControl control;
        callback.on_save({.global_step = step}, control);
    }

    std::vector<std::string> checkpoint_names() {
        std::vector<std::string> names;
        for (const auto& entry : list_checkpoints(this->fs(), this->root())) {
            names.push_back(entry.name);
        }
        return names;
    }

    // The RuntimeError every rank raises when the rank-zero commit failed.
    std::string publication_error(TriggerCallback& callback, std::int64_t step) {
        TrainerControl control;
        try {
            callback.on_save({.global_step = step}, control);
        } catch (const RuntimeError& error) {
            return error.what();
        }
        return "<no RuntimeError>";
    }

    std::string incomplete_message(std::int64_t step) {
        return "checkpoint evaluation saved checkpoint publication failed on global rank zero "
               "(RuntimeError): "
               "checkpoint evaluation expected native Trainer to write the new best checkpoint before "
               "on_save: " +
               this->at(checkpoint_dir_name(step));
    }
};
TYPED_TEST_SUITE(TriggerCallbackSave, Backends, BackendNames);

TYPED_TEST(TriggerCallbackSave, WithoutAPendingSaveOnSaveDoesNothing) {
    auto callback = this->make();
    TrainerControl control;
    callback.on_save({.global_step = 10}, control);
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
    EXPECT_FALSE(this->fs().is_symlink(this->link_path()));
}

TYPED_TEST(TriggerCallbackSave, RefusesASaveEventForAnotherStepAndForgetsTheExpectedOne) {
    auto callback = this->deciding_to_save(10, 0.5);
    write_checkpoint(this->fs(), this->root(), 11, callback.state());
    TrainerControl control;
    try {
        callback.on_save({.global_step = 11}, control);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(error.what(),
                     "checkpoint evaluation received an unexpected native save event: expected_step=10, "
                     "saved_step=11");
    }
    EXPECT_EQ(callback.pending_checkpoint_save_step(), std::nullopt);
    callback.on_save({.global_step = 10}, control);  // nothing pending any more: no commit
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitPublishesTheLinkAndThenTheSidecar) {
    RecordingFileSystem recorder(this->fs());
    auto callback = this->deciding_to_save(10, 0.5, this->config(), recorder, this->collective_);
    this->save(callback, 10);

    EXPECT_TRUE(this->fs().is_symlink(this->link_path()));
    EXPECT_EQ(this->fs().readlink(this->link_path()), "checkpoint-10");
    const auto renames = recorder.only({"rename"});
    ASSERT_EQ(renames.size(), 2U);
    EXPECT_EQ(renames[0], "rename " + this->at(kLinkTempName) + " -> " + this->link_path());
    EXPECT_EQ(renames[1].rfind("rename " + this->at(kSidecarTempPrefix), 0), 0U) << renames[1];
    EXPECT_EQ(renames[1].substr(renames[1].size() - this->sidecar_path().size()), this->sidecar_path());
    EXPECT_THAT(this->temp_files(), IsEmpty());
}

TYPED_TEST(TriggerCallbackSave, SidecarHasTheSeedsIndentedShape) {
    auto callback = this->deciding_to_save(10, 0.5);
    this->save(callback, 10);

    const json expected = {{"version", 2},
                           {"checkpoint_eval_state", callback.policy().state_dict()},
                           {"last_evaluated_step", 10}};
    EXPECT_EQ(this->read_json(this->sidecar_path()), expected);
    const auto text = this->fs().read_file(this->sidecar_path());
    // json.dump(indent=2, sort_keys=True) plus the seed's trailing newline.
    EXPECT_EQ(text.rfind("{\n  \"checkpoint_eval_state\": {\n    \"patience\": 3,\n", 0), 0U) << text;
    EXPECT_NE(text.find("\n    \"state\": {\n      \"best_is_external\": false,\n"), std::string::npos)
        << text;
    EXPECT_EQ(text.substr(text.size() - 46), "  \"last_evaluated_step\": 10,\n  \"version\": 2\n}\n");
    EXPECT_EQ(this->read_json(this->sidecar_path())["checkpoint_eval_state"]["state"]["best_step"], 10);
}

TYPED_TEST(TriggerCallbackSave, BarrierComesBeforeTheRankZeroPublication) {
    RecordingCollective collective;
    auto callback = this->deciding_to_save(10, 0.5, this->config(), this->fs(), collective);
    this->save(callback, 10);
    EXPECT_THAT(collective.calls, ElementsAre("barrier", "broadcast from 0"));
    EXPECT_TRUE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitFailsWhenTheCheckpointDirectoryIsMissing) {
    auto callback = this->deciding_to_save(10, 0.5);
    EXPECT_EQ(this->publication_error(callback, 10), this->incomplete_message(10));
    EXPECT_FALSE(this->fs().is_symlink(this->link_path()));
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitFailsWhenTrainerStateIsMissing) {
    auto callback = this->deciding_to_save(10, 0.5);
    write_checkpoint(this->fs(), this->root(), 10, callback.state());
    this->fs().unlink(this->at("checkpoint-10/trainer_state.json"));
    EXPECT_EQ(this->publication_error(callback, 10), this->incomplete_message(10));
    EXPECT_FALSE(this->fs().is_symlink(this->link_path()));
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitFailsWhenTrainerStateIsTorn) {
    auto callback = this->deciding_to_save(10, 0.5);
    write_checkpoint(this->fs(), this->root(), 10, callback.state());
    const auto path = this->at("checkpoint-10/trainer_state.json");
    const auto whole = this->fs().read_file(path);
    this->fs().write_file(path, whole.substr(0, whole.size() / 2));
    EXPECT_EQ(this->publication_error(callback, 10), this->incomplete_message(10));
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitFailsWhenTrainerStateNamesAnotherStep) {
    auto callback = this->deciding_to_save(10, 0.5);
    write_checkpoint(this->fs(), this->root(), 10, callback.state());
    this->fs().write_file(this->at("checkpoint-10/trainer_state.json"), R"({"global_step": 9})");
    EXPECT_EQ(this->publication_error(callback, 10), this->incomplete_message(10));
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackSave, CommitFailsWhenTheSavedStepIsNotThePolicyBest) {
    auto callback = this->make();
    callback.policy().observe(0.5, 10);
    auto forged = callback.policy().observe(0.5, 20).to_dict();  // a tie, forced to save
    forged["should_save"] = true;
    callback.record_checkpoint_evaluation_decision(forged);
    write_checkpoint(this->fs(), this->root(), 20, callback.state());
    EXPECT_EQ(this->publication_error(callback, 20),
              "checkpoint evaluation saved checkpoint publication failed on global rank zero (RuntimeError): "
              "checkpoint evaluation save commit does not match the policy best step: saved_step=20, "
              "best_step=10");
}

TYPED_TEST(TriggerCallbackSave, NonZeroRankTakesPartInTheCollectivesButNeverTouchesTheFileSystem) {
    ForbiddenFileSystem forbidden;
    ScriptedRankOneCollective collective;
    TriggerCallback callback(this->config(), forbidden, collective);
    // on_train_begin caches the role; rank 0's restore and recovery both succeeded.
    collective.rank_zero_outcomes = {
        json{{"ok", true}, {"loaded", false}, {"policy_state", callback.policy().state_dict()}},
        json{{"ok", true}},
    };
    TrainerControl control;
    callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0, .is_world_process_zero = false},
                            control);
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));
    EXPECT_EQ(callback.persist(), std::nullopt);

    // Rank 0 ran out of space while publishing: rank 1 raises the same error instead of moving on.
    collective.rank_zero_outcomes = {
        json{{"ok", false}, {"error_type", "OSError"}, {"error", "rename: No space left on device"}}};
    try {
        callback.on_save({.global_step = 10}, control);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(
            error.what(),
            "checkpoint evaluation saved checkpoint publication failed on global rank zero (OSError): "
            "rename: No space left on device");
    }
    EXPECT_EQ(collective.barriers, 1);
    EXPECT_EQ(collective.broadcasts, 3);
}

// ---- the final_checkpoint link ----------------------------------------------------------------

TYPED_TEST(TriggerCallbackSave, LinkIsReplacedAtomicallyWithARelativeTarget) {
    write_checkpoint(this->fs(), this->root(), 5);
    this->fs().symlink("checkpoint-5", this->link_path());
    // A link temp left by an earlier killed writer is simply replaced.
    this->fs().symlink("checkpoint-404", this->at(kLinkTempName));
    RecordingFileSystem recorder(this->fs());
    auto callback = this->deciding_to_save(10, 0.5, this->config(), recorder, this->collective_);
    this->save(callback, 10);

    EXPECT_EQ(this->fs().readlink(this->link_path()), "checkpoint-10");
    EXPECT_TRUE(this->fs().is_dir(this->link_path()));
    // The old link is never removed first: a new link is made under the temp name and renamed over it.
    const auto link_calls = recorder.only({"symlink", "rename", "unlink"});
    EXPECT_EQ(link_calls[0], "unlink " + this->at(kLinkTempName));
    EXPECT_EQ(link_calls[1], "symlink checkpoint-10 <- " + this->at(kLinkTempName));
    EXPECT_EQ(link_calls[2], "rename " + this->at(kLinkTempName) + " -> " + this->link_path());
    for (const auto& call : link_calls) {
        EXPECT_NE(call, "unlink " + this->link_path());
    }
    EXPECT_THAT(this->temp_files(), IsEmpty());
}

TYPED_TEST(TriggerCallbackSave, SaveTotalLimitOneKeepsOnlyTheBestAndNewerCheckpoints) {
    write_checkpoint(this->fs(), this->root(), 5);
    write_checkpoint(this->fs(), this->root(), 8);
    write_checkpoint(this->fs(), this->root(), 15);  // newer than the best: another save in flight
    auto callback = this->deciding_to_save(10, 0.5);
    this->save(callback, 10);
    EXPECT_THAT(this->checkpoint_names(), ElementsAre("checkpoint-10", "checkpoint-15"));
}

TYPED_TEST(TriggerCallbackSave, LargerSaveTotalLimitKeepsTheNewestOlderCheckpoints) {
    for (const std::int64_t step : {2, 4, 6, 8, 12}) {
        write_checkpoint(this->fs(), this->root(), step);
    }
    auto config = this->config();
    config.save_total_limit = 3;
    auto callback = this->deciding_to_save(10, 0.5, config);
    this->save(callback, 10);
    EXPECT_THAT(this->checkpoint_names(),
                ElementsAre("checkpoint-6", "checkpoint-8", "checkpoint-10", "checkpoint-12"));
    EXPECT_EQ(this->fs().readlink(this->link_path()), "checkpoint-10");
}

TYPED_TEST(TriggerCallbackSave, CommitUnderTheLimitRemovesNothing) {
    write_checkpoint(this->fs(), this->root(), 4);
    auto config = this->config();
    config.save_total_limit = 2;
    auto callback = this->deciding_to_save(10, 0.5, config);
    this->save(callback, 10);
    EXPECT_THAT(this->checkpoint_names(), ElementsAre("checkpoint-4", "checkpoint-10"));
}

}  // namespace
}  // namespace ckpt::testing
