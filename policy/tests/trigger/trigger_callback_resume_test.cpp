// TriggerCallback::on_train_begin: where the output directory comes from, the sidecar restore
// in its broadcast envelope, the restored stop, the recovery of link and sidecar after a crash
// between the checkpoint write and on_save, and the removal of temp files left by a killed writer.
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt::testing {
namespace {

template <typename Backend>
class TriggerCallbackResume : public TriggerCallbackTest<Backend> {
  protected:
    TrainerControl begin(TriggerCallback& callback) {
        TrainerControl control;
        callback.on_train_begin({.output_dir = this->root()}, {.global_step = 0}, control);
        return control;
    }

    // A resume from checkpoint-`step` with the callback restoring its own state: the error its
    // on_train_begin raises, or empty when it raises none.
    std::string resume_error(std::int64_t step) {
        auto config = this->config();
        config.output_dir = this->root();
        auto callback = this->make(config);
        TrainerControl control;
        try {
            callback.on_train_begin({.output_dir = this->root()}, {.global_step = step}, control);
        } catch (const RuntimeError& error) {
            return error.what();
        }
        return {};
    }
};
TYPED_TEST_SUITE(TriggerCallbackResume, Backends, BackendNames);

TYPED_TEST(TriggerCallbackResume, TakesOutputDirFromTheTrainingArgumentsWhenUnset) {
    auto callback = this->make(TriggerCallbackConfig{});
    this->begin(callback);
    EXPECT_EQ(callback.config().output_dir, this->root());
    EXPECT_EQ(callback.state_path(), this->sidecar_path());
}

TYPED_TEST(TriggerCallbackResume, KeepsAConfiguredOutputDir) {
    auto config = this->config();
    config.output_dir = this->at("configured");
    auto callback = this->make(config);
    this->begin(callback);
    EXPECT_EQ(callback.config().output_dir, this->at("configured"));
}

TYPED_TEST(TriggerCallbackResume, RestoresANewerCommittedSidecar) {
    const auto saved = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, saved);
    auto writer = this->from_state(saved);
    writer.policy().observe(0.4, 20);  // a lower score lives only in the sidecar
    writer.persist();

    auto callback = this->from_state(saved);
    const auto control = this->begin(callback);
    EXPECT_EQ(callback.policy().state(), writer.policy().state());
    EXPECT_FALSE(control.should_training_stop);
}

TYPED_TEST(TriggerCallbackResume, ACorruptSidecarFailsWithTheBroadcastEnvelope) {
    this->fs().write_file(this->sidecar_path(), "not json");
    auto callback = this->make();
    try {
        this->begin(callback);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "checkpoint evaluation sidecar policy restore failed on global rank zero (ValueError): "
                  "Cannot load checkpoint evaluation metadata from " +
                      this->sidecar_path());
    }
}

// Finding 26: two nodes' writes of one trainer_state.json, interleaved by a power loss, can
// garble a key into one that still parses. Read leniently, the member it named would default.
TYPED_TEST(TriggerCallbackResume, ARebuildRefusesAMemberItsStateNeverWrites) {
    auto garbled = this->callback_state_after({0.5});
    auto& attributes = garbled["attributes"];
    attributes["checkppoint_eval_state"] = attributes["checkpoint_eval_state"];
    attributes.erase("checkpoint_eval_state");
    try {
        (void)this->from_state(garbled);
        FAIL() << "expected ValueError";
    } catch (const ValueError& error) {
        EXPECT_THAT(std::string(error.what()),
                    ::testing::HasSubstr(": attributes.checkppoint_eval_state is not a member it writes"));
    }
    auto keyed = this->callback_state_after({0.5});
    keyed["state_key"] = "beside args and attributes";
    keyed["attributes"].erase("trigger_count");  // an older release's state may lack a member
    EXPECT_NO_THROW((void)this->from_state(keyed));
    // load_state_dict's flat payload, the state's members beside the settings, is no damage.
    auto flat = this->callback_state_after({0.5});
    auto& payload = flat["attributes"]["checkpoint_eval_state"];
    const auto nested = payload["state"];
    payload.erase("state");
    payload.update(nested);
    EXPECT_NO_THROW((void)this->from_state(flat));
}

TYPED_TEST(TriggerCallbackResume, ItsOwnRestoreRefusesAGarbledCheckpointNamingTheFile) {
    auto garbled = this->callback_state_after({0.5});
    garbled["argss"] = garbled["args"];
    garbled.erase("args");
    write_checkpoint(this->fs(), this->root(), 10, garbled);
    EXPECT_THAT(this->resume_error(10),
                ::testing::HasSubstr("checkpoint-10/trainer_state.json: argss is not a member it writes"));
}

// Transformers read the file (Python reads a number beyond a double as inf); a text the port
// cannot read must not pass for a checkpoint without the callback's state, whose counts it would
// reset.
TYPED_TEST(TriggerCallbackResume, ItsOwnRestoreRefusesATextItCannotReadNamingTheFile) {
    write_checkpoint(this->fs(), this->root(), 10, this->callback_state_after({0.5}));
    const auto path = this->root() + "/checkpoint-10/trainer_state.json";
    auto text = this->fs().read_file(path);
    text.insert(1, "\"total_flos\": 1e400, ");
    this->fs().write_file(path, text);
    EXPECT_THAT(
        this->resume_error(10),
        ::testing::HasSubstr("checkpoint-10/trainer_state.json: it is not a valid trainer_state.json"));
}

// Finding 27: a sidecar refused because its best checkpoint is gone is removed, or a later resume
// would adopt its counts once a new history rewrote that checkpoint with the same step and score.
TYPED_TEST(TriggerCallbackResume, ASidecarFromAnAbandonedHistoryIsRemoved) {
    auto writer = this->from_state(this->callback_state_after({0.5}));
    writer.persist();  // its best checkpoint was never written
    {
        const mutants::MutantScope kept(mutants::Mutant::abandoned_sidecar_kept);
        auto callback = this->make();
        this->begin(callback);
        EXPECT_TRUE(this->fs().exists(this->sidecar_path()));
    }
    auto callback = this->make();
    this->begin(callback);
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
    EXPECT_EQ(callback.policy().state().evaluation_count, 0);
}

TYPED_TEST(TriggerCallbackResume, RestoresADurableStopIntoShouldTrainingStop) {
    PolicySettings settings{.patience = 1};
    CheckpointEvaluationPolicy stopped(settings);
    stopped.establish_external_baseline(0.9);
    stopped.observe(0.1, 10);
    ASSERT_TRUE(stopped.state().stop_requested);
    this->fs().write_file(this->sidecar_path(),
                          json({{"version", 1}, {"checkpoint_eval_state", stopped.state_dict()}}).dump(2));
    auto config = this->config();
    config.policy = settings;
    auto callback = this->make(config);
    const auto control = this->begin(callback);
    EXPECT_TRUE(control.should_training_stop);
    EXPECT_TRUE(callback.policy_stop_requested());
    const auto epoch_end = native_save_at_epoch_end(callback, 11);
    EXPECT_FALSE(epoch_end.should_save);
    EXPECT_FALSE(epoch_end.should_evaluate);
}

TYPED_TEST(TriggerCallbackResume, ForgetsASaveThatWasInFlightBeforeTheRestart) {
    auto callback = this->make();
    callback.record_checkpoint_evaluation_decision(callback.policy().observe(0.5, 10));
    ASSERT_EQ(callback.pending_checkpoint_save_step(), 10);
    this->begin(callback);
    EXPECT_EQ(callback.pending_checkpoint_save_step(), std::nullopt);
}

// The process died after _save_checkpoint wrote checkpoint-20 but before on_save: the link still
// names checkpoint-10 and the sidecar is older. on_train_begin republishes both and prunes.
TYPED_TEST(TriggerCallbackResume, RecoversLinkAndSidecarAfterACrashBeforeOnSave) {
    const auto first = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, first);
    auto committed = this->from_state(first);
    committed.persist();
    this->fs().symlink("checkpoint-10", this->link_path());
    const auto second = this->callback_state_after({0.5, 0.7});
    write_checkpoint(this->fs(), this->root(), 20, second);

    auto callback = this->from_state(second);
    this->begin(callback);
    EXPECT_EQ(this->fs().readlink(this->link_path()), "checkpoint-20");
    EXPECT_EQ(this->read_json(this->sidecar_path()),
              json({{"version", 2},
                    {"checkpoint_eval_state", second["attributes"]["checkpoint_eval_state"]},
                    {"last_evaluated_step", nullptr}}));
    EXPECT_THAT(list_checkpoints(this->fs(), this->root()), ::testing::SizeIs(1));
    EXPECT_TRUE(this->fs().is_dir(this->at("checkpoint-20")));
}

TYPED_TEST(TriggerCallbackResume, RecoveryRepublishesAMissingLinkAndSidecar) {
    const auto saved = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, saved);
    auto callback = this->from_state(saved);
    this->begin(callback);
    EXPECT_EQ(this->fs().readlink(this->link_path()), "checkpoint-10");
    EXPECT_EQ(this->read_json(this->sidecar_path())["checkpoint_eval_state"], callback.policy().state_dict());
}

TYPED_TEST(TriggerCallbackResume, NoRecoveryForAnIncompleteBestCheckpoint) {
    const auto saved = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, saved);
    this->fs().write_file(this->at("checkpoint-10/trainer_state.json"), "{\"global_st");
    auto callback = this->from_state(saved);
    this->begin(callback);
    EXPECT_FALSE(this->fs().is_symlink(this->link_path()));
    EXPECT_FALSE(this->fs().exists(this->sidecar_path()));
}

TYPED_TEST(TriggerCallbackResume, NoRecoveryForAnExternalBest) {
    auto callback = this->make();
    callback.policy().establish_external_baseline(0.9);
    this->begin(callback);
    EXPECT_THAT(this->fs().list_dir(this->root()), IsEmpty());
}

TYPED_TEST(TriggerCallbackResume, RemovesTempFilesLeftByAKilledWriterAndNothingElse) {
    this->fs().write_file(this->at(".checkpoint_eval_state.json.tmp-4242-0123abcd"), "{\"vers");
    this->fs().write_file(this->at(".checkpoint_eval_state.json.tmp-7"), "");
    this->fs().symlink("checkpoint-10", this->at(".final_checkpoint.tmp"));  // dangling, too
    this->fs().write_file(this->at(".keep.tmp-1"), "not ours");
    this->fs().write_file(this->at("notes.txt"), "not ours");
    auto callback = this->make();
    this->begin(callback);
    EXPECT_THAT(this->fs().list_dir(this->root()), ElementsAre(".keep.tmp-1", "notes.txt"));
}

TYPED_TEST(TriggerCallbackResume, AMissingOutputDirIsNotAnError) {
    auto config = this->config();
    config.output_dir = this->at("not-yet");
    auto callback = this->make(config);
    const auto control = this->begin(callback);
    EXPECT_FALSE(control.should_training_stop);
    EXPECT_FALSE(this->fs().exists(this->at("not-yet")));
}

// ---- non-zero ranks -----------------------------------------------------------------------------

TYPED_TEST(TriggerCallbackResume, ANonZeroRankAdoptsRankZerosRestoreWithoutTouchingTheFileSystem) {
    PolicySettings settings{.patience = 1};
    CheckpointEvaluationPolicy stopped(settings);
    stopped.establish_external_baseline(0.9);
    stopped.observe(0.1, 10);
    ForbiddenFileSystem forbidden;
    ScriptedRankOneCollective collective;
    collective.rank_zero_outcomes = {
        json{{"ok", true}, {"loaded", true}, {"policy_state", stopped.state_dict()}},
        json{{"ok", true}},
    };
    auto config = this->config();
    config.policy = settings;
    TriggerCallback callback(config, forbidden, collective);
    TrainerControl control;
    callback.on_train_begin({.output_dir = this->root()}, {.global_step = 10, .is_world_process_zero = false},
                            control);
    EXPECT_EQ(callback.policy().state(), stopped.state());
    EXPECT_TRUE(control.should_training_stop);
    EXPECT_EQ(collective.broadcasts, 2);
    EXPECT_EQ(callback.persist(), std::nullopt);
}

TYPED_TEST(TriggerCallbackResume, ANonZeroRankRaisesRankZerosRestoreError) {
    ForbiddenFileSystem forbidden;
    ScriptedRankOneCollective collective;
    collective.rank_zero_outcomes = {json{{"ok", false},
                                          {"error_type", "ValueError"},
                                          {"error", "Cannot load checkpoint evaluation metadata"}}};
    TriggerCallback callback(this->config(), forbidden, collective);
    TrainerControl control;
    try {
        callback.on_train_begin({.output_dir = this->root()}, {.is_world_process_zero = false}, control);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(error.what(),
                     "checkpoint evaluation sidecar policy restore failed on global rank zero (ValueError): "
                     "Cannot load checkpoint evaluation metadata");
    }
}

TYPED_TEST(TriggerCallbackResume, ANonZeroRankRefusesAMalformedOutcome) {
    ForbiddenFileSystem forbidden;
    ScriptedRankOneCollective collective;
    TriggerCallback callback(this->config(), forbidden, collective);
    TrainerControl control;
    collective.rank_zero_outcomes = {json{{"loaded", true}}};
    try {
        callback.on_train_begin({.output_dir = this->root()}, {.is_world_process_zero = false}, control);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(
            error.what(),
            "checkpoint evaluation sidecar policy restore did not receive a valid rank-zero outcome");
    }
    collective.rank_zero_outcomes = {json{{"ok", true}, {"loaded", true}}};
    try {
        callback.on_train_begin({.output_dir = this->root()}, {.is_world_process_zero = false}, control);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& error) {
        EXPECT_STREQ(error.what(),
                     "checkpoint evaluation sidecar policy restore received no valid policy state");
    }
}

}  // namespace
}  // namespace ckpt::testing
