// `ckptsim inspect` end to end: the real binary on output directories written in the seed's
// formats (see seed_output_dir_fixtures.hpp), checking exit codes and the --json fields
// scripts rely on.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/seed_output_dir_fixtures.hpp"
#include "sim/tests/support/subprocess.hpp"

namespace ckpt::testing {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

Completed run_inspect(const SeedOutputDir& dir, const std::vector<std::string>& arguments) {
    std::vector<std::string> args{"inspect"};
    args.insert(args.end(), arguments.begin(), arguments.end());
    return run_ckptsim(std::move(args), dir.scratch());
}

json inspect_json(const SeedOutputDir& dir, int expected_exit) {
    const auto outcome = run_inspect(dir, {dir.path(), "--json"});
    EXPECT_EQ(outcome.exit_code, expected_exit) << outcome.out << outcome.err;
    return json::parse(outcome.out);
}

std::vector<std::string> kinds(const json& findings) {
    std::vector<std::string> names;
    for (const auto& finding : findings) {
        names.push_back(finding.at("kind"));
        EXPECT_FALSE(finding.at("message").get<std::string>().empty());
    }
    return names;
}

// Everything under the directory, so a test can show that inspect changed nothing.
std::map<std::string, std::string> snapshot(PosixFileSystem& fs, const std::string& path) {
    std::map<std::string, std::string> entries;
    for (const auto& name : fs.list_dir(path)) {
        const auto child = join_path(path, name);
        if (fs.is_symlink(child)) {
            entries[child] = "-> " + fs.readlink(child);
        } else if (fs.is_dir(child)) {
            entries.merge(snapshot(fs, child));
            entries[child] = "dir";
        } else {
            entries[child] = fs.read_file(child);
        }
    }
    return entries;
}

// The state after scores 0.5 at step 10 and 0.6 at step 20: the best is checkpoint-20.
SeedPolicy best_at_20() {
    return {.best_score = "0.6", .best_step = "20", .evaluation_count = 2};
}

TEST(InspectCommand, AConsistentDirectoryExitsZero) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.sidecar(best_at_20());
    dir.link("checkpoint-20");
    const auto before = snapshot(dir.fs(), dir.path());

    const auto report = inspect_json(dir, 0);
    EXPECT_THAT(report["problems"], IsEmpty());
    EXPECT_EQ(report["checkpoints"], json::parse(R"([{"name": "checkpoint-20", "step": 20, "complete": true,
                                                     "detail": null, "recorded_global_step": null}])"));
    EXPECT_EQ(report["resume"]["checkpoint"], "checkpoint-20");
    EXPECT_EQ(report["resume"]["complete"], true);
    EXPECT_EQ(report["resume"]["source"], "checkpoint");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["best_step"], 20);
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["best_score"], 0.6);
    EXPECT_EQ(report["final_checkpoint"], json::parse(R"({"target": "checkpoint-20", "valid": true})"));

    const auto human = run_inspect(dir, {dir.path()});
    EXPECT_EQ(human.exit_code, 0);
    EXPECT_THAT(human.out, HasSubstr("verdict: consistent"));
    EXPECT_EQ(snapshot(dir.fs(), dir.path()), before);
}

// Lower scores after the best live only in the sidecar; a resume restores them from there.
TEST(InspectCommand, ANewerCommittedSidecarIsWhatAResumeRestores) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    auto later = best_at_20();
    later.evaluation_count = 4;
    later.lower_score_streak = 2;
    dir.sidecar(later);
    dir.link("checkpoint-20");

    const auto report = inspect_json(dir, 0);
    EXPECT_THAT(report["problems"], IsEmpty());
    EXPECT_EQ(report["resume"]["source"], "sidecar");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["evaluation_count"], 4);
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["lower_score_streak"], 2);
}

TEST(InspectCommand, ReadsTheCallbackStateFromAOneElementList) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20(), /*as_list=*/true);
    dir.sidecar(best_at_20());
    dir.link("checkpoint-20");
    const auto report = inspect_json(dir, 0);
    EXPECT_EQ(report["resume"]["source"], "checkpoint");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["evaluation_count"], 2);
}

// The job died after writing checkpoint-20 and before on_save committed it.
TEST(InspectCommand, ASidecarOlderThanTheCheckpointIsReported) {
    SeedOutputDir dir;
    const SeedPolicy first{.best_score = "0.5", .best_step = "10", .evaluation_count = 1};
    dir.committed_checkpoint(10, first);
    dir.committed_checkpoint(20, best_at_20());
    dir.sidecar(first);
    dir.link("checkpoint-10");

    const auto report = inspect_json(dir, 1);
    EXPECT_THAT(kinds(report["problems"]), Contains("sidecar_older"));
    EXPECT_THAT(kinds(report["problems"]), Contains("link_not_best"));
    EXPECT_EQ(report["resume"]["checkpoint"], "checkpoint-20");
    EXPECT_EQ(report["resume"]["source"], "checkpoint");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["best_step"], 20);
    EXPECT_EQ(report["final_checkpoint"]["valid"], true);
}

TEST(InspectCommand, AnIncompleteNewestCheckpointMakesTheResumeFail) {
    SeedOutputDir dir;
    const SeedPolicy first{.best_score = "0.5", .best_step = "10", .evaluation_count = 1};
    dir.committed_checkpoint(10, first);
    dir.checkpoint(30, std::nullopt);  // killed before trainer_state.json
    dir.sidecar(first);
    dir.link("checkpoint-10");

    const auto report = inspect_json(dir, 1);
    EXPECT_THAT(kinds(report["problems"]), Contains("incomplete_resume_checkpoint"));
    EXPECT_EQ(report["checkpoints"][1]["name"], "checkpoint-30");
    EXPECT_EQ(report["checkpoints"][1]["complete"], false);
    EXPECT_EQ(report["resume"]["checkpoint"], "checkpoint-30");
    EXPECT_EQ(report["resume"]["complete"], false);
    EXPECT_TRUE(report["resume"]["policy_state"].is_null());
    EXPECT_EQ(report["resume"]["source"], "none");
    EXPECT_EQ(report["resume"]["fallback_checkpoint"], "checkpoint-10");
}

TEST(InspectCommand, ATornOrMismatchedTrainerStateIsIncomplete) {
    SeedOutputDir dir;
    dir.committed_checkpoint(10, {.best_score = "0.5", .best_step = "10", .evaluation_count = 1});
    const auto whole = seed_trainer_state(20, seed_callback_state(best_at_20(), dir.path(), false));
    dir.checkpoint(20, whole.substr(0, whole.size() / 2));
    dir.checkpoint(5, seed_trainer_state(7, ""));  // names another step
    dir.link("checkpoint-10");

    const auto report = inspect_json(dir, 1);
    EXPECT_EQ(report["checkpoints"][0]["complete"], false);  // checkpoint-5
    EXPECT_THAT(report["checkpoints"][0]["detail"].get<std::string>(), HasSubstr("global_step 7"));
    EXPECT_EQ(report["checkpoints"][2]["complete"], false);  // checkpoint-20
    EXPECT_THAT(kinds(report["problems"]), Contains("incomplete_resume_checkpoint"));
    EXPECT_THAT(kinds(report["problems"]), Contains("checkpoint_step_mismatch"));
    EXPECT_EQ(report["checkpoints"][0]["recorded_global_step"], 7);
    EXPECT_TRUE(report["checkpoints"][2]["recorded_global_step"].is_null());  // torn, not renamed
}

// A copy of checkpoint-20 renamed to checkpoint-30: every file is there, but global_step says 20.
// Transformers picks it by name and resumes (it never compares the two), so the report must call it
// mismatched, not incomplete, and must not forecast a failing resume.
TEST(InspectCommand, ARenamedNewestCheckpointIsMismatchedAndTheResumeContinues) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.checkpoint(30, seed_trainer_state(20, seed_callback_state(best_at_20(), dir.path(), false)));
    dir.sidecar(best_at_20());
    dir.link("checkpoint-20");

    const auto report = inspect_json(dir, 1);
    EXPECT_EQ(report["checkpoints"][1]["name"], "checkpoint-30");
    EXPECT_EQ(report["checkpoints"][1]["complete"], false);
    EXPECT_EQ(report["checkpoints"][1]["recorded_global_step"], 20);
    EXPECT_THAT(kinds(report["problems"]), Contains("checkpoint_step_mismatch"));
    EXPECT_THAT(kinds(report["problems"]), Not(Contains("incomplete_resume_checkpoint")));
    EXPECT_THAT(kinds(report["problems"]), Not(Contains("best_checkpoint_missing")));
    EXPECT_EQ(report["resume"]["checkpoint"], "checkpoint-30");
    EXPECT_EQ(report["resume"]["recorded_global_step"], 20);
    EXPECT_EQ(report["resume"]["fails"], false);
    EXPECT_EQ(report["resume"]["source"], "checkpoint");

    const auto human = run_inspect(dir, {dir.path()});
    EXPECT_EQ(human.exit_code, 1);
    EXPECT_THAT(human.out, HasSubstr("checkpoint-30  MISMATCHED: trainer_state.json records global_step 20"));
    EXPECT_THAT(human.out, HasSubstr("picks checkpoint-30 (MISMATCHED"));
    EXPECT_THAT(human.out, Not(HasSubstr("INCOMPLETE:")));
    EXPECT_THAT(human.out, Not(HasSubstr("FAILS")));
}

// The best's files are there but its trainer_state.json names another step: the report says so
// rather than calling the model gone.
TEST(InspectCommand, ABestWhoseStepDisagreesIsNotCalledMissing) {
    SeedOutputDir dir;
    dir.committed_checkpoint(10, {.best_score = "0.5", .best_step = "10", .evaluation_count = 1});
    dir.checkpoint(20, seed_trainer_state(25, ""));
    dir.committed_checkpoint(30, {.best_score = "0.6", .best_step = "20", .evaluation_count = 3});
    dir.sidecar({.best_score = "0.6", .best_step = "20", .evaluation_count = 3});
    dir.link("checkpoint-10");

    const auto report = inspect_json(dir, 1);
    std::string best_message;
    for (const auto& finding : report["problems"]) {
        if (finding["kind"] == "best_checkpoint_missing") {
            best_message = finding["message"];
        }
    }
    EXPECT_THAT(best_message, HasSubstr("checkpoint-20"));
    EXPECT_THAT(best_message, HasSubstr("records global_step 25, not 20"));
    EXPECT_THAT(best_message, Not(HasSubstr("gone")));
    EXPECT_THAT(kinds(report["problems"]), Contains("checkpoint_step_mismatch"));
}

TEST(InspectCommand, ABestWhoseDirectoryIsGoneSaysItDoesNotExist) {
    SeedOutputDir dir;
    dir.committed_checkpoint(30, {.best_score = "0.6", .best_step = "20", .evaluation_count = 3});
    dir.sidecar({.best_score = "0.6", .best_step = "20", .evaluation_count = 3});

    const auto report = inspect_json(dir, 1);
    bool said_so = false;
    for (const auto& finding : report["problems"]) {
        said_so |= finding["kind"] == "best_checkpoint_missing" &&
                   finding["message"].get<std::string>().find("does not exist") != std::string::npos;
    }
    EXPECT_TRUE(said_so) << report.dump(2);
}

TEST(InspectCommand, ADanglingLinkIsInvalid) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.sidecar(best_at_20());
    dir.link("checkpoint-10");  // removed by rotation

    const auto report = inspect_json(dir, 1);
    EXPECT_THAT(kinds(report["problems"]), Contains("dangling_link"));
    EXPECT_EQ(report["final_checkpoint"], json::parse(R"({"target": "checkpoint-10", "valid": false})"));
}

TEST(InspectCommand, LeftoverTempFilesAreReported) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.sidecar(best_at_20());
    dir.link("checkpoint-20");
    dir.fs().write_file(dir.at(".checkpoint_eval_state.json.tmp-4242-0f3a9c"), "{\"checkpoint_eval");
    const auto before = snapshot(dir.fs(), dir.path());

    const auto report = inspect_json(dir, 1);
    EXPECT_EQ(kinds(report["problems"]), std::vector<std::string>{"leftover_temp"});
    EXPECT_THAT(report["problems"][0]["message"].get<std::string>(),
                HasSubstr(".checkpoint_eval_state.json.tmp-4242-0f3a9c"));
    EXPECT_EQ(snapshot(dir.fs(), dir.path()), before);  // reported, not removed
}

TEST(InspectCommand, AStopAlreadyRequestedIsReported) {
    SeedOutputDir dir;
    const SeedPolicy first{.best_score = "0.5", .best_step = "10", .evaluation_count = 1};
    dir.committed_checkpoint(10, first);
    dir.sidecar({.best_score = "0.5",
                 .best_step = "10",
                 .lower_score_streak = 3,
                 .evaluation_count = 4,
                 .stop_requested = true});
    dir.link("checkpoint-10");

    const auto report = inspect_json(dir, 1);
    EXPECT_EQ(kinds(report["problems"]), std::vector<std::string>{"stop_requested"});
    EXPECT_EQ(report["resume"]["source"], "sidecar");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["stop_requested"], true);
}

TEST(InspectCommand, ASidecarNamingAMissingBestIsIgnored) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.sidecar({.best_score = "0.7", .best_step = "30", .evaluation_count = 3});
    dir.link("checkpoint-20");

    const auto report = inspect_json(dir, 1);
    EXPECT_THAT(kinds(report["problems"]), Contains("sidecar_uncommitted_best"));
    EXPECT_EQ(report["resume"]["source"], "checkpoint");
    EXPECT_EQ(report["resume"]["policy_state"]["state"]["evaluation_count"], 2);
    EXPECT_EQ(report["sidecar"]["restored"], false);
}

TEST(InspectCommand, ACorruptSidecarMakesTheResumeFail) {
    SeedOutputDir dir;
    dir.committed_checkpoint(20, best_at_20());
    dir.fs().write_file(dir.at("checkpoint_eval_state.json"), "{\"version\": 1, \"checkpoint_ev");
    dir.link("checkpoint-20");

    const auto report = inspect_json(dir, 1);
    ASSERT_THAT(kinds(report["problems"]), Contains("corrupt_sidecar"));
    EXPECT_THAT(report["problems"][0]["message"].get<std::string>(),
                HasSubstr(dir.at("checkpoint_eval_state.json")));
    EXPECT_EQ(report["resume"]["fails"], true);
    EXPECT_TRUE(report["resume"]["policy_state"].is_null());
}

TEST(InspectCommand, ABaselineOnlyRunNeedsNoCheckpointOrLink) {
    SeedOutputDir dir;
    dir.sidecar({.best_score = "0.9",
                 .best_step = "0",
                 .lower_score_streak = 2,
                 .evaluation_count = 2,
                 .best_is_external = true});
    const auto report = inspect_json(dir, 0);
    EXPECT_TRUE(report["resume"]["checkpoint"].is_null());
    EXPECT_EQ(report["resume"]["source"], "sidecar");
    EXPECT_EQ(report["final_checkpoint"], json::parse(R"({"target": null, "valid": false})"));
}

TEST(InspectCommand, APreStatefulTrainerStateIsANoteNotAProblem) {
    SeedOutputDir dir;
    dir.checkpoint(500, pre_stateful_trainer_state(500));
    const auto report = inspect_json(dir, 0);
    EXPECT_THAT(report["problems"], IsEmpty());
    EXPECT_THAT(kinds(report["notes"]), Contains("trainer_state_migrated"));
    EXPECT_EQ(report["checkpoints"][0]["complete"], true);
    EXPECT_EQ(report["resume"]["source"], "none");
}

TEST(InspectCommand, AnEmptyDirectoryIsConsistent) {
    SeedOutputDir dir;
    const auto report = inspect_json(dir, 0);
    EXPECT_EQ(report["checkpoints"], json::array());
    EXPECT_TRUE(report["resume"]["checkpoint"].is_null());
    EXPECT_EQ(report["resume"]["source"], "none");
}

TEST(InspectCommand, AMissingDirectoryExitsTwoNamingThePath) {
    SeedOutputDir dir;
    const auto missing = dir.at("no-such-run");
    const auto outcome = run_inspect(dir, {missing});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_THAT(outcome.err, HasSubstr(missing));
    EXPECT_THAT(outcome.err, HasSubstr("No such file or directory"));
    EXPECT_TRUE(outcome.out.empty());
}

TEST(InspectCommand, JsonOnAMissingDirectoryStillPrintsADocument) {
    SeedOutputDir dir;
    const auto missing = dir.at("no-such-run");
    const auto outcome = run_inspect(dir, {missing, "--json"});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_THAT(outcome.err, HasSubstr(missing));
    const auto document = json::parse(outcome.out);
    EXPECT_EQ(document["consistent"], false);
    EXPECT_EQ(document["error"]["kind"], "unreadable_output_dir");
    EXPECT_THAT(document["error"]["message"].get<std::string>(), HasSubstr("No such file or directory"));
    EXPECT_THAT(document["output_dir"].get<std::string>(), HasSubstr("no-such-run"));
}

TEST(InspectCommand, AFileInsteadOfADirectoryExitsTwo) {
    SeedOutputDir dir;
    dir.fs().write_file(dir.at("notes.txt"), "x");
    const auto outcome = run_inspect(dir, {dir.at("notes.txt"), "--json"});
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_THAT(outcome.err, HasSubstr(dir.at("notes.txt")));
    EXPECT_THAT(outcome.err, HasSubstr("Not a directory"));
}

}  // namespace
}  // namespace ckpt::testing
