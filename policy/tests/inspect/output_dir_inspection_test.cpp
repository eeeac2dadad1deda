// inspect_output_dir on both file systems: the findings the end-to-end CLI tests
// (sim/tests/cli/inspect_command_test.cpp) do not reach, and the read-only guarantee.
#include "policy/inspect/output_dir_inspection.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/ports/read_only_file_system.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"

namespace ckpt::testing {
namespace {

using ::testing::Contains;
using ::testing::Not;

std::vector<std::string> kinds(const std::vector<InspectionFinding>& findings) {
    std::vector<std::string> names;
    for (const auto& finding : findings) {
        names.push_back(finding.kind);
    }
    return names;
}

template <typename Backend>
class OutputDirInspectionTest : public TriggerCallbackTest<Backend> {
  protected:
    void sidecar_from(const json& callback_state) {
        const json payload = {
            {"version", 1}, {"checkpoint_eval_state", callback_state["attributes"]["checkpoint_eval_state"]}};
        this->write_sidecar(payload);
    }
    // checkpoint-10 committed (0.5), link and sidecar published: a consistent directory.
    void consistent_run() {
        const auto state = this->callback_state_after({0.5});
        write_checkpoint(this->fs(), this->root(), 10, state);
        sidecar_from(state);
        this->fs().symlink("checkpoint-10", this->link_path());
    }
    OutputDirInspection inspect() { return inspect_output_dir(this->fs(), this->root()); }
};
TYPED_TEST_SUITE(OutputDirInspectionTest, Backends, BackendNames);

TYPED_TEST(OutputDirInspectionTest, AConsistentRunHasNoFindings) {
    this->consistent_run();
    const auto report = this->inspect();
    EXPECT_TRUE(report.consistent()) << report.to_json().dump(2);
    EXPECT_THAT(report.notes, IsEmpty());
    EXPECT_EQ(report.resume.source, "checkpoint");
    EXPECT_TRUE(report.final_checkpoint.valid);
}

// Fuzz finding (inspect_tree, 2026-12-07): a sidecar a resume ignores, whose state is not a valid
// one (best_step without best_score), made the explanation of why it is ignored throw out of
// inspect_output_dir. It is reported instead.
TYPED_TEST(OutputDirInspectionTest, AnIgnoredSidecarWithAnInvalidStateIsReportedNotThrown) {
    make_dirs(this->fs(), this->at("checkpoint-10"));
    this->fs().write_file(this->at("checkpoint-10/model.safetensors"), "weights");
    this->fs().write_file(
        this->at("checkpoint-10/trainer_state.json"),
        R"({"global_step": 10, "stateful_callbacks": {"CheckpointEvaluationTriggerCallback": {"arts": )"
        R"({"output_dir": "/out", "patience": 3, "save_total_limit": 1}, "attributes": {"checkpoint_eval_state": )"
        R"({"patience": 3, "patience_start_step": 0, "state": {"best_is_external": false, "best_score": 0.6, )"
        R"("best_step": 10, "evaluation_count": 1, "lower_score_streak": 0, "stop_requested": false}, )"
        R"("tie_policy": "reset", "version": 1}, "trigger_count": 1}}}})");
    this->fs().write_file(
        this->sidecar_path(),
        R"({"checkpoint_eval_state": {"patience": 3, "patience_start_step": 0, "state": {"best_is_external": )"
        R"(false, "bezt_score": 0.6, "best_step": 10, "evaluation_count": 1, "lower_score_streak": 0, )"
        R"("stop_requested": false}, "tie_policy": "reset", "version": 1}, "version": 1})");
    this->fs().symlink("checkpoint-10", this->link_path());
    OutputDirInspection report;
    ASSERT_NO_THROW(report = this->inspect());
    EXPECT_THAT(kinds(report.problems), Contains("corrupt_sidecar")) << report.to_json().dump(2);
}

TYPED_TEST(OutputDirInspectionTest, NeverWritesEvenToAMessyDirectory) {
    write_checkpoint(this->fs(), this->root(), 10, this->callback_state_after({0.5}));
    make_dirs(this->fs(), this->at("checkpoint-30"));
    this->fs().write_file(this->at(".checkpoint_eval_state.json.tmp-1"), "{");
    this->fs().symlink("checkpoint-10", this->at(".final_checkpoint.tmp"));
    this->fs().symlink("checkpoint-20", this->link_path());
    this->fs().write_file(this->sidecar_path(), "{");
    RecordingFileSystem recorder(this->fs());
    const auto report = inspect_output_dir(recorder, this->root());
    EXPECT_FALSE(report.consistent());
    EXPECT_THAT(recorder.only({"write_file", "fsync_file", "fsync_dir", "rename", "unlink", "mkdir",
                               "remove_tree", "symlink"}),
                IsEmpty());
}

TYPED_TEST(OutputDirInspectionTest, ReadOnlyFileSystemRefusesEveryChange) {
    this->fs().write_file(this->at("kept"), "before");
    ReadOnlyFileSystem read_only(this->fs());
    EXPECT_EQ(read_only.read_file(this->at("kept")), "before");
    EXPECT_THROW(read_only.write_file(this->at("kept"), "after"), std::logic_error);
    EXPECT_THROW(read_only.unlink(this->at("kept")), std::logic_error);
    EXPECT_THROW(read_only.remove_tree(this->root()), std::logic_error);
    EXPECT_EQ(this->fs().read_file(this->at("kept")), "before");
}

TYPED_TEST(OutputDirInspectionTest, AMissingOrNonDirectoryPathIsUnreadable) {
    for (const auto& [path, expected] :
         {std::pair{this->at("absent"), ENOENT}, std::pair{this->at("file"), ENOTDIR}}) {
        this->fs().write_file(this->at("file"), "x");
        try {
            inspect_output_dir(this->fs(), path);
            ADD_FAILURE() << "expected FileSystemError for " << path;
        } catch (const FileSystemError& error) {
            EXPECT_EQ(error.error_number(), expected);
            EXPECT_EQ(error.path(), path);
        }
    }
}

TYPED_TEST(OutputDirInspectionTest, ALinkThatIsNotASymlinkIsReported) {
    const auto state = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, state);
    this->sidecar_from(state);
    make_dirs(this->fs(), this->link_path());
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), ElementsAre("link_not_symlink"));
    EXPECT_FALSE(report.final_checkpoint.valid);
}

TYPED_TEST(OutputDirInspectionTest, ALinkOutOfTheOutputDirIsForeign) {
    const auto state = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, state);
    this->sidecar_from(state);
    make_dirs(this->fs(), this->at("elsewhere"));
    this->fs().symlink("elsewhere", this->link_path());
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), ElementsAre("link_foreign"));
    EXPECT_EQ(report.final_checkpoint.target, "elsewhere");
}

TYPED_TEST(OutputDirInspectionTest, ALinkToAnIncompleteCheckpointIsInvalid) {
    make_dirs(this->fs(), this->at("checkpoint-5"));  // a rotation killed mid-delete
    this->fs().symlink("checkpoint-5", this->link_path());
    const auto state = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, state);
    this->sidecar_from(state);
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), ElementsAre("incomplete_checkpoint", "link_incomplete"));
    EXPECT_FALSE(report.final_checkpoint.valid);
    EXPECT_EQ(report.checkpoints[0].detail,
              "trainer_state.json is missing (the save was interrupted before its last write)");
}

TYPED_TEST(OutputDirInspectionTest, AMissingLinkForARetainedBestIsReported) {
    const auto state = this->callback_state_after({0.5});
    write_checkpoint(this->fs(), this->root(), 10, state);
    this->sidecar_from(state);
    EXPECT_THAT(kinds(this->inspect().problems), ElementsAre("link_missing"));
}

TYPED_TEST(OutputDirInspectionTest, AMissingSidecarAfterACommittedCheckpointIsReported) {
    write_checkpoint(this->fs(), this->root(), 10, this->callback_state_after({0.5}));
    this->fs().symlink("checkpoint-10", this->link_path());
    EXPECT_THAT(kinds(this->inspect().problems), ElementsAre("sidecar_missing"));
}

TYPED_TEST(OutputDirInspectionTest, ASidecarFromAnAbandonedHistoryIsReported) {
    write_checkpoint(this->fs(), this->root(), 10, this->callback_state_after({0.25}));
    this->fs().symlink("checkpoint-10", this->link_path());
    this->sidecar_from(this->callback_state_after({0.5, 0.4}));
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), ElementsAre("sidecar_best_mismatch"));
    EXPECT_EQ(report.resume.source, "checkpoint");
    EXPECT_FALSE(report.sidecar.restored);
    EXPECT_EQ(report.sidecar.evaluation_count, 2);
}

TYPED_TEST(OutputDirInspectionTest, ASidecarThatDisagreesAtTheSameCountIsReported) {
    write_checkpoint(this->fs(), this->root(), 20, this->callback_state_after({0.5, 0.6}));
    this->fs().symlink("checkpoint-20", this->link_path());
    this->sidecar_from(this->callback_state_after({0.6, 0.5}));
    EXPECT_THAT(kinds(this->inspect().problems), ElementsAre("sidecar_diverged"));
}

TYPED_TEST(OutputDirInspectionTest, ASidecarWithOtherSettingsIsCorruptAndNamesThePath) {
    this->consistent_run();
    auto other = this->callback_state_after({0.5, 0.4});
    other["attributes"]["checkpoint_eval_state"]["patience"] = 7;
    this->sidecar_from(other);
    const auto report = this->inspect();
    ASSERT_THAT(kinds(report.problems), ElementsAre("corrupt_sidecar"));
    EXPECT_EQ(report.problems[0].message.rfind(
                  this->sidecar_path() + ": resumed checkpoint evaluation patience", 0),
              0U)
        << report.problems[0].message;
    EXPECT_FALSE(report.resume.failure.empty());
    EXPECT_EQ(report.resume.policy_state, std::nullopt);
}

TYPED_TEST(OutputDirInspectionTest, AnUnrestorableCallbackStateMakesTheResumeFail) {
    auto state = this->callback_state_after({0.5});
    state["args"]["save_total_limit"] = 0;
    write_checkpoint(this->fs(), this->root(), 10, state);
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), Contains("corrupt_checkpoint_state"));
    EXPECT_EQ(report.resume.failure, "checkpoint evaluation save_total_limit must be positive");
    EXPECT_EQ(report.resume.source, "none");
}

TYPED_TEST(OutputDirInspectionTest, NotesWhatAResumeWouldPrune) {
    write_checkpoint(this->fs(), this->root(), 5, this->callback_state_after({0.4}));
    this->consistent_run();
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.notes), ElementsAre("resume_prunes"));
    EXPECT_TRUE(report.consistent());
}

TYPED_TEST(OutputDirInspectionTest, NotesACheckpointWrittenForAnotherOutputDir) {
    auto state = this->callback_state_after({0.5});
    state["args"]["output_dir"] = "/cluster/jobs/run-7";
    write_checkpoint(this->fs(), this->root(), 10, state);
    this->sidecar_from(state);
    this->fs().symlink("checkpoint-10", this->link_path());
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.notes), ElementsAre("output_dir_moved"));
    EXPECT_TRUE(report.consistent());
    EXPECT_EQ(report.resume.source, "checkpoint");
}

TYPED_TEST(OutputDirInspectionTest, JsonHasTheFieldsScriptsRelyOn) {
    this->consistent_run();
    const auto document = this->inspect().to_json();
    for (const char* key : {"checkpoints", "resume", "final_checkpoint", "problems", "consistent"}) {
        EXPECT_TRUE(document.contains(key)) << key;
    }
    EXPECT_EQ(document["checkpoints"][0]["name"], "checkpoint-10");
    EXPECT_EQ(document["checkpoints"][0]["step"], 10);
    EXPECT_EQ(document["checkpoints"][0]["complete"], true);
    for (const char* key : {"checkpoint", "complete", "policy_state", "source"}) {
        EXPECT_TRUE(document["resume"].contains(key)) << key;
    }
    EXPECT_EQ(document["final_checkpoint"]["target"], "checkpoint-10");
    EXPECT_EQ(document["problems"], json::array());
    EXPECT_THAT(document["resume"]["policy_state"]["state"].dump(), Not(IsEmpty()));
}

// The seed's version 1 and our version 2 both inspect cleanly; the report says which it is and,
// for version 2, the last counted step a resume would skip through.
TYPED_TEST(OutputDirInspectionTest, ReportsTheSidecarVersionAndItsLastEvaluatedStep) {
    this->consistent_run();  // a version 1 sidecar
    auto report = this->inspect();
    EXPECT_TRUE(report.consistent()) << report.to_json().dump(2);
    EXPECT_EQ(report.sidecar.version, 1);
    EXPECT_EQ(report.sidecar.last_evaluated_step, std::nullopt);
    EXPECT_EQ(report.to_json()["sidecar"]["version"], 1);
    EXPECT_EQ(report.to_json()["sidecar"]["last_evaluated_step"], nullptr);

    auto writer = this->from_state(this->callback_state_after({0.5}));
    writer.record_checkpoint_evaluation_decision(writer.policy().observe(0.4, 20));
    writer.persist();
    report = this->inspect();
    EXPECT_TRUE(report.consistent()) << report.to_json().dump(2);
    EXPECT_TRUE(report.sidecar.restored);
    EXPECT_EQ(report.sidecar.evaluation_count, 2);
    EXPECT_EQ(report.to_json()["sidecar"]["version"], 2);
    EXPECT_EQ(report.to_json()["sidecar"]["last_evaluated_step"], 20);
}

TYPED_TEST(OutputDirInspectionTest, AnUnsupportedSidecarVersionIsCorrupt) {
    this->consistent_run();
    auto sidecar = this->read_json(this->sidecar_path());
    sidecar["version"] = 3;
    this->write_sidecar(sidecar);
    const auto report = this->inspect();
    EXPECT_THAT(kinds(report.problems), Contains("corrupt_sidecar"));
    EXPECT_EQ(report.sidecar.version, std::nullopt);
    EXPECT_EQ(report.to_json()["sidecar"]["version"], nullptr);
}

}  // namespace
}  // namespace ckpt::testing
