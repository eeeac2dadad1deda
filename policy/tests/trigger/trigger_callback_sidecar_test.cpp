// TriggerCallback's sidecar: persist (atomic, rank 0 only) and load with the seed's rules.
// on_train_begin, which restores, recovers and cleans up, is in trigger_callback_resume_test.cpp.
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
class TriggerCallbackSidecar : public TriggerCallbackTest<Backend> {
  protected:
    // A sidecar as the seed writes it, for a policy that observed `scores` at steps 10, 20, ...
    json sidecar_after(std::initializer_list<double> scores, PolicySettings settings = {}) {
        CheckpointEvaluationPolicy policy(settings);
        observe_every_ten_steps(policy, scores);
        return {{"version", 1}, {"checkpoint_eval_state", policy.state_dict()}};
    }

    std::string load_error(TriggerCallback& callback) {
        try {
            callback.load(true);
        } catch (const ValueError& error) {
            return error.what();
        }
        return "<no ValueError>";
    }
};
TYPED_TEST_SUITE(TriggerCallbackSidecar, Backends, BackendNames);

// ---- persist ------------------------------------------------------------------------------------

TYPED_TEST(TriggerCallbackSidecar, PersistWritesTheSidecarUnderOutputDir) {
    auto callback = this->make();
    callback.policy().observe(0.5, 10);
    EXPECT_EQ(callback.persist(), this->sidecar_path());
    EXPECT_EQ(this->read_json(this->sidecar_path()),
              json({{"version", 2},
                    {"checkpoint_eval_state", callback.policy().state_dict()},
                    {"last_evaluated_step", nullptr}}));
}

TYPED_TEST(TriggerCallbackSidecar, PersistCreatesAMissingOutputDir) {
    auto config = this->config();
    config.output_dir = this->at("nested/run");
    auto callback = this->make(config);
    EXPECT_EQ(callback.persist(), this->at("nested/run/checkpoint_eval_state.json"));
    EXPECT_TRUE(this->fs().exists(this->at("nested/run/checkpoint_eval_state.json")));
}

TYPED_TEST(TriggerCallbackSidecar, PersistWithoutOutputDirWritesNothing) {
    auto callback = this->make(TriggerCallbackConfig{});
    EXPECT_EQ(callback.state_path(), std::nullopt);
    EXPECT_EQ(callback.persist(), std::nullopt);
    EXPECT_THAT(this->fs().list_dir(this->root()), IsEmpty());
}

// Temp file in the same directory, fsync, rename over the sidecar, then fsync the directory so
// the rename itself survives a power loss (the seed stops after the rename).
TYPED_TEST(TriggerCallbackSidecar, PersistIsATempWriteFsyncRenameAndDirectoryFsync) {
    RecordingFileSystem recorder(this->fs());
    TriggerCallback callback(this->config(), recorder, this->collective_);
    callback.policy().observe(0.5, 10);
    callback.persist();
    const auto writes = recorder.only({"write_file", "fsync_file", "rename", "fsync_dir"});
    ASSERT_EQ(writes.size(), 4U);
    const std::string temp = writes[0].substr(std::string("write_file ").size());
    EXPECT_EQ(parent_path(temp), this->root());
    EXPECT_EQ(base_name(temp).rfind(kSidecarTempPrefix, 0), 0U) << temp;
    EXPECT_EQ(writes[1], "fsync_file " + temp);
    EXPECT_EQ(writes[2], "rename " + temp + " -> " + this->sidecar_path());
    EXPECT_EQ(writes[3], "fsync_dir " + this->root());
    EXPECT_THAT(this->temp_files(), IsEmpty());
}

TYPED_TEST(TriggerCallbackSidecar, EveryPersistUsesAFreshTempName) {
    RecordingFileSystem recorder(this->fs());
    TriggerCallback callback(this->config(), recorder, this->collective_);
    callback.persist();
    callback.persist();
    const auto writes = recorder.only({"write_file"});
    ASSERT_EQ(writes.size(), 2U);
    EXPECT_NE(writes[0], writes[1]);
}

TYPED_TEST(TriggerCallbackSidecar, PersistOnANonZeroRankTouchesNothing) {
    ForbiddenFileSystem forbidden;
    TriggerCallback callback(this->config(), forbidden, this->collective_);
    EXPECT_EQ(callback.persist(/*is_world_process_zero=*/false), std::nullopt);
    EXPECT_FALSE(callback.load(/*is_world_process_zero=*/false));
}

// ---- load ---------------------------------------------------------------------------------------

TYPED_TEST(TriggerCallbackSidecar, MissingSidecarLoadsNothing) {
    auto callback = this->make();
    EXPECT_FALSE(callback.load());
    EXPECT_EQ(callback.policy().state(), CheckpointEvaluationState{});
}

TYPED_TEST(TriggerCallbackSidecar, BadJsonIsAnErrorNamingThePath) {
    this->fs().write_file(this->sidecar_path(), "{\"version\": 1, \"checkpoint_eval_");
    auto callback = this->make();
    EXPECT_EQ(this->load_error(callback),
              "Cannot load checkpoint evaluation metadata from " + this->sidecar_path());
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarThatIsNotAMappingIsAnError) {
    this->write_sidecar(json::array({1, 2}));
    auto callback = this->make();
    EXPECT_EQ(this->load_error(callback),
              "Checkpoint evaluation metadata at " + this->sidecar_path() + " must be a mapping");
}

TYPED_TEST(TriggerCallbackSidecar, AVersionMismatchIsAnErrorWithThePythonRepr) {
    auto callback = this->make();
    auto payload = this->sidecar_after({0.5});
    payload["version"] = 3;
    this->write_sidecar(payload);
    EXPECT_EQ(this->load_error(callback),
              "Unsupported checkpoint evaluation metadata version at " + this->sidecar_path() + ": 3");
    payload.erase("version");
    this->write_sidecar(payload);
    EXPECT_EQ(this->load_error(callback),
              "Unsupported checkpoint evaluation metadata version at " + this->sidecar_path() + ": None");
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarWithoutPolicyStateIsAnError) {
    this->write_sidecar({{"version", 1}, {"checkpoint_eval_state", "lost"}});
    auto callback = this->make();
    EXPECT_EQ(this->load_error(callback),
              "Checkpoint evaluation metadata at " + this->sidecar_path() + " has no policy state");
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarWithOtherSettingsIsRefusedAndChangesNothing) {
    this->write_sidecar(this->sidecar_after({0.5}, PolicySettings{.patience = 5}));
    write_checkpoint(this->fs(), this->root(), 10);
    auto callback = this->make();
    EXPECT_EQ(this->load_error(callback),
              "resumed checkpoint evaluation patience does not match configuration");
    EXPECT_EQ(callback.policy().state().evaluation_count, 0);
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarThatIsNotNewerIsIgnored) {
    auto callback = this->make();
    callback.policy().observe(0.5, 10);
    callback.policy().observe(0.4, 20);
    const auto live = callback.policy().state();
    this->write_sidecar(this->sidecar_after({0.7, 0.6}));  // as many evaluations, other history
    write_checkpoint(this->fs(), this->root(), 10);
    EXPECT_FALSE(callback.load());
    EXPECT_EQ(callback.policy().state(), live);
}

TYPED_TEST(TriggerCallbackSidecar, ANewerSidecarWithACommittedBestIsRestored) {
    const auto payload = this->sidecar_after({0.5, 0.4, 0.3});
    auto writer = this->make();
    writer.policy().observe(0.5, 10);
    write_checkpoint(this->fs(), this->root(), 10, writer.state());
    this->write_sidecar(payload);
    auto callback = this->from_state(writer.state());
    EXPECT_TRUE(callback.load());
    EXPECT_EQ(callback.policy().state_dict(), payload["checkpoint_eval_state"]);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 2);
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarWhoseBestCheckpointIsMissingIsIgnored) {
    this->write_sidecar(this->sidecar_after({0.5, 0.4}));
    auto callback = this->make();
    EXPECT_FALSE(callback.load());
    EXPECT_EQ(callback.policy().state().evaluation_count, 0);
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarWhoseBestCheckpointIsIncompleteIsIgnored) {
    this->write_sidecar(this->sidecar_after({0.5, 0.4}));
    write_checkpoint(this->fs(), this->root(), 10);
    this->fs().unlink(this->at("checkpoint-10/trainer_state.json"));  // the crash before the last write
    auto callback = this->make();
    EXPECT_FALSE(callback.load());
    EXPECT_EQ(callback.policy().state().evaluation_count, 0);
}

// checkpoint-10 exists, but from another history: it records a different best score.
TYPED_TEST(TriggerCallbackSidecar, ASidecarWhoseBestScoreTheCheckpointDoesNotRecordIsIgnored) {
    auto other = this->make();
    other.policy().observe(0.25, 10);
    write_checkpoint(this->fs(), this->root(), 10, other.state());
    this->write_sidecar(this->sidecar_after({0.5, 0.4}));
    auto callback = this->make();
    EXPECT_FALSE(callback.load());
    EXPECT_EQ(callback.policy().state().evaluation_count, 0);
}

TYPED_TEST(TriggerCallbackSidecar, ASidecarWhoseBestIsTheExternalBaselineNeedsNoCheckpoint) {
    CheckpointEvaluationPolicy policy;
    policy.establish_external_baseline(0.8);
    policy.observe(0.5, 10);
    this->write_sidecar({{"version", 1}, {"checkpoint_eval_state", policy.state_dict()}});
    auto callback = this->make();
    EXPECT_TRUE(callback.load());
    EXPECT_TRUE(callback.policy().state().best_is_external);
    EXPECT_EQ(callback.policy().state().lower_score_streak, 1);
}

TYPED_TEST(TriggerCallbackSidecar, PersistThenLoadRoundTripsThroughANewCallback) {
    auto writer = this->make();
    writer.policy().establish_external_baseline(0.8);
    writer.policy().observe(0.5, 10);
    writer.policy().observe(0.8, 20);
    writer.persist();
    auto reader = this->make();
    EXPECT_TRUE(reader.load());
    EXPECT_EQ(reader.policy().state(), writer.policy().state());
    EXPECT_THAT(this->fs().list_dir(this->root()), ElementsAre("checkpoint_eval_state.json"));
}

}  // namespace
}  // namespace ckpt::testing
