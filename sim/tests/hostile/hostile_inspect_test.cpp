// Hostile files inside an output directory given to `ckptsim inspect --json`: sidecars,
// trainer_state.json (with and without stateful_callbacks), checkpoint names, links and the
// directory itself. Each case starts from a consistent directory in the seed's formats and
// breaks one thing; inspect must report it (exit 1 with a problem of the expected kind, or exit
// 2 when the directory itself cannot be read), within the time limit, and write nothing.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/hostile/hostile_harness.hpp"
#include "sim/tests/support/seed_output_dir_fixtures.hpp"

namespace ckpt::testing::hostile {
namespace {

namespace fs = std::filesystem;

struct InspectCase {
    std::string name;
    std::function<void(const fs::path& run)> damage;
    std::string kind;  // a problem of this kind must be reported; empty: exit 2 instead
};

std::ostream& operator<<(std::ostream& out, const InspectCase& c) {
    return out << c.name;
}

SeedPolicy best_at_10() {
    SeedPolicy policy;
    policy.best_score = "0.6";
    policy.best_step = "10";
    policy.evaluation_count = 1;
    return policy;
}

// The consistent directory every case damages: checkpoint-10 holds the best, the sidecar
// agrees, final_checkpoint points at it.
void build_consistent(SeedOutputDir& dir) {
    dir.committed_checkpoint(10, best_at_10());
    dir.sidecar(best_at_10());
    dir.link("checkpoint-10");
}

const std::string kSidecar = "checkpoint_eval_state.json";
const std::string kTrainerState = "checkpoint-10/trainer_state.json";

InspectCase file_case(std::string name, std::string file, std::string text, std::string kind) {
    return {std::move(name),
            [file = std::move(file), text = std::move(text)](const fs::path& run) {
                write_bytes(run / file, text);
            },
            std::move(kind)};
}

// The seed's sidecar with `from` replaced by `to`.
InspectCase sidecar_edit(std::string name, const std::string& from, const std::string& to) {
    return file_case(std::move(name), kSidecar, replace_all(seed_sidecar(best_at_10()), from, to),
                     "corrupt_sidecar");
}

// A value of the wrong JSON type that the seed's Python coercions would still accept.
InspectCase sidecar_type(std::string name, const std::string& from, const std::string& to) {
    auto c = sidecar_edit(std::move(name), from, to);
    c.kind = "sidecar_wrong_type";
    return c;
}

InspectCase trainer_state_text(std::string name, std::string text, std::string kind) {
    return file_case(std::move(name), kTrainerState, std::move(text), std::move(kind));
}

std::string trainer_state_with_callbacks(const std::string& callbacks) {
    const auto text = seed_trainer_state(10, "");
    const auto at = text.find("\"stateful_callbacks\": {");
    const auto end = text.find("\n  },\n", at);
    return text.substr(0, at) + "\"stateful_callbacks\": " + callbacks + text.substr(end + 4);
}

std::vector<InspectCase> sidecar_cases() {
    const auto sidecar = seed_sidecar(best_at_10());
    return {
        file_case("sidecar_empty", kSidecar, "", "corrupt_sidecar"),
        file_case("sidecar_truncated", kSidecar, sidecar.substr(0, sidecar.size() / 2), "corrupt_sidecar"),
        file_case("sidecar_invalid_utf8", kSidecar, replace_all(sidecar, "reset", "r\xE9set"),
                  "corrupt_sidecar"),
        file_case("sidecar_control_after_json", kSidecar, sidecar + "\x07", "corrupt_sidecar"),
        file_case("sidecar_nul_after_json", kSidecar, sidecar + std::string(1, '\0'), "corrupt_sidecar"),
        sidecar_edit("sidecar_nan_score", "\"best_score\": 0.6", "\"best_score\": NaN"),
        sidecar_edit("sidecar_infinity_score", "\"best_score\": 0.6", "\"best_score\": Infinity"),
        sidecar_edit("sidecar_count_2pow64", "\"evaluation_count\": 1",
                     "\"evaluation_count\": 18446744073709551616"),
        sidecar_edit("sidecar_count_1e400", "\"evaluation_count\": 1", "\"evaluation_count\": 1e400"),
        sidecar_type("sidecar_count_fraction", "\"evaluation_count\": 1", "\"evaluation_count\": 1.5"),
        sidecar_type("sidecar_count_boolean", "\"evaluation_count\": 1", "\"evaluation_count\": true"),
        sidecar_edit("sidecar_count_negative", "\"evaluation_count\": 1", "\"evaluation_count\": -1"),
        sidecar_edit("sidecar_best_step_negative", "\"best_step\": 10", "\"best_step\": -10"),
        sidecar_type("sidecar_best_step_string", "\"best_step\": 10", "\"best_step\": \"10\""),
        sidecar_type("sidecar_patience_string", "\"patience\": 3", "\"patience\": \"3\""),
        sidecar_type("sidecar_stop_requested_number", "\"stop_requested\": false", "\"stop_requested\": 0"),
        sidecar_type("sidecar_tie_policy_number", "\"tie_policy\": \"reset\"", "\"tie_policy\": 5"),
        sidecar_edit("sidecar_state_array", "\"state\": {", "\"state\": [{"),
        sidecar_edit("sidecar_policy_state_array", "\"checkpoint_eval_state\": {",
                     "\"checkpoint_eval_state\": [{"),
        sidecar_edit("sidecar_version_string", "\n  \"version\": 1\n}", "\n  \"version\": \"1\"\n}"),
        sidecar_edit("sidecar_future_version", "\n  \"version\": 1\n}", "\n  \"version\": 3\n}"),
        sidecar_edit("sidecar_duplicate_key", "\"evaluation_count\": 1",
                     "\"evaluation_count\": 1, \"evaluation_count\": 0"),
        sidecar_edit("sidecar_nested_value", "\"evaluation_count\": 1",
                     "\"evaluation_count\": " + nested(100000)),
        file_case("sidecar_nested_100000", kSidecar, nested(100000), "corrupt_sidecar"),
        file_case("sidecar_top_level_array", kSidecar, "[" + sidecar + "]", "corrupt_sidecar"),
        file_case("sidecar_unknown_top_key", kSidecar,
                  replace_all(sidecar, "\n  \"version\"", "\n  \"colour\": 1,\n  \"version\""),
                  "unknown_sidecar_field"),
        file_case("sidecar_unknown_state_key", kSidecar,
                  replace_all(sidecar, "\"stop_requested\"", "\"colour\": 1,\n      \"stop_requested\""),
                  "unknown_sidecar_field"),
        {"sidecar_fifo", [](const fs::path& run) { make_fifo(run / kSidecar); }, "corrupt_sidecar"},
        {"sidecar_symlink_to_dev_zero",
         [](const fs::path& run) { replace_with_symlink(run / kSidecar, "/dev/zero"); }, "corrupt_sidecar"},
        {"sidecar_symlink_loop", [](const fs::path& run) { replace_with_symlink(run / kSidecar, kSidecar); },
         "foreign_entry"},
        {"sidecar_directory",
         [](const fs::path& run) {
             fs::remove(run / kSidecar);
             fs::create_directory(run / kSidecar);
         },
         "corrupt_sidecar"},
        {"sidecar_one_gib", [](const fs::path& run) { write_sparse_gib(run / kSidecar); }, "corrupt_sidecar"},
    };
}

std::vector<InspectCase> trainer_state_cases() {
    const auto state = seed_trainer_state(10, seed_callback_state(best_at_10(), "@DIR", false));
    return {
        trainer_state_text("state_empty", "", "incomplete_resume_checkpoint"),
        trainer_state_text("state_invalid_utf8", replace_all(state, "reset", "r\xE9set"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_nul_after_json", state + std::string(1, '\0') + "x",
                           "incomplete_resume_checkpoint"),
        // Python's json reads NaN (finding 28), but not glued to a number.
        trainer_state_text("state_nan_glued",
                           replace_all(state, "\"total_flos\": 0.0", "\"total_flos\": 0NaN"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_global_step_negative",
                           replace_all(state, "\"global_step\": 10", "\"global_step\": -10"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_global_step_fraction",
                           replace_all(state, "\"global_step\": 10", "\"global_step\": 10.5"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_global_step_boolean",
                           replace_all(state, "\"global_step\": 10", "\"global_step\": true"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_global_step_2pow64",
                           replace_all(state, "\"global_step\": 10", "\"global_step\": 18446744073709551616"),
                           "incomplete_resume_checkpoint"),
        trainer_state_text("state_duplicate_key",
                           replace_all(state, "\"epoch\": 0.2", "\"epoch\": 0.2,\n  \"epoch\": 0.3"),
                           "malformed_trainer_state"),
        trainer_state_text("state_nested_log_history",
                           replace_all(state, "\"log_history\": []", "\"log_history\": " + nested(100000)),
                           "malformed_trainer_state"),
        trainer_state_text("state_callbacks_array", trainer_state_with_callbacks("[]"),
                           "malformed_stateful_callbacks"),
        trainer_state_text("state_callbacks_string", trainer_state_with_callbacks("\"x\""),
                           "malformed_stateful_callbacks"),
        trainer_state_text("state_callback_number",
                           trainer_state_with_callbacks(R"({"CheckpointEvaluationTriggerCallback": 5})"),
                           "malformed_stateful_callbacks"),
        trainer_state_text("state_callback_list_of_numbers",
                           trainer_state_with_callbacks(R"({"CheckpointEvaluationTriggerCallback": [5, 6]})"),
                           "malformed_stateful_callbacks"),
        trainer_state_text("state_callback_args_array",
                           trainer_state_with_callbacks(
                               R"({"CheckpointEvaluationTriggerCallback": {"args": [], "attributes": {}}})"),
                           "malformed_stateful_callbacks"),
        trainer_state_text(
            "state_control_attributes_string",
            trainer_state_with_callbacks(R"({"TrainerControl": {"args": {}, "attributes": "x"}})"),
            "malformed_stateful_callbacks"),
        {"state_fifo", [](const fs::path& run) { make_fifo(run / kTrainerState); },
         "incomplete_resume_checkpoint"},
        {"state_symlink_to_dev_zero",
         [](const fs::path& run) { replace_with_symlink(run / kTrainerState, "/dev/zero"); },
         "incomplete_resume_checkpoint"},
        {"state_one_gib", [](const fs::path& run) { write_sparse_gib(run / kTrainerState); },
         "incomplete_resume_checkpoint"},
    };
}

std::vector<InspectCase> directory_cases() {
    return {
        {"checkpoint_huge_n",
         [](const fs::path& run) { fs::create_directory(run / "checkpoint-99999999999999999999999"); },
         "unusual_checkpoint_name"},
        {"checkpoint_leading_zero",
         [](const fs::path& run) { fs::create_directory(run / "checkpoint-0011"); },
         "unusual_checkpoint_name"},
        {"checkpoint_not_decimal", [](const fs::path& run) { fs::create_directory(run / "checkpoint-1e3"); },
         "unusual_checkpoint_name"},
        {"checkpoint_symlink_loop",
         [](const fs::path& run) { replace_with_symlink(run / "checkpoint-20", "checkpoint-20"); },
         "foreign_entry"},
        {"final_checkpoint_to_dev_zero",
         [](const fs::path& run) { replace_with_symlink(run / "final_checkpoint", "/dev/zero"); }, ""},
        {"final_checkpoint_loop",
         [](const fs::path& run) { replace_with_symlink(run / "final_checkpoint", "final_checkpoint"); }, ""},
        {"final_checkpoint_fifo",
         [](const fs::path& run) {
             fs::remove(run / "final_checkpoint");
             make_fifo(run / "final_checkpoint");
         },
         ""},
    };
}

std::vector<InspectCase> all_cases() {
    auto cases = sidecar_cases();
    for (auto& more : {trainer_state_cases(), directory_cases()}) {
        cases.insert(cases.end(), more.begin(), more.end());
    }
    return cases;
}

class HostileInspect : public ::testing::TestWithParam<InspectCase> {};

nlohmann::json inspect_json_of_damaged(SeedOutputDir& dir, int& exit_code, std::string& err) {
    const auto done = run_limited({"inspect", "--json", dir.path()}, dir.scratch());
    exit_code = done.exit_code;
    err = done.err;
    return nlohmann::json::parse(done.out, nullptr, false);
}

TEST(HostileInspectBaseline, TheUndamagedDirectoryIsConsistent) {
    SeedOutputDir dir;
    build_consistent(dir);
    int exit_code = 0;
    std::string err;
    const auto report = inspect_json_of_damaged(dir, exit_code, err);
    EXPECT_EQ(exit_code, 0) << report.dump(2) << err;
}

// Transformers writes a logged grad_norm of nan or inf as NaN or Infinity, and json.loads reads it
// (finding 28): such a trainer_state.json is no problem to report.
TEST(HostileInspectBaseline, PythonsNonFiniteNumbersInTrainerStateAreNoProblem) {
    SeedOutputDir dir;
    build_consistent(dir);
    const auto state = seed_trainer_state(10, seed_callback_state(best_at_10(), "@DIR", false));
    const auto logged = replace_all(state, "\"log_history\": [],",
                                    "\"log_history\": [{\"grad_norm\": NaN, \"loss\": 1.5, \"step\": 5}, "
                                    "{\"grad_norm\": Infinity, \"step\": 10}, {\"note\": \"NaN\"}],");
    ASSERT_NE(logged, state);
    write_bytes(fs::path(dir.path()) / kTrainerState,
                replace_all(logged, "\"total_flos\": 0.0", "\"total_flos\": -Infinity"));
    int exit_code = 0;
    std::string err;
    const auto report = inspect_json_of_damaged(dir, exit_code, err);
    EXPECT_EQ(exit_code, 0) << report.dump(2) << err;
}

TEST_P(HostileInspect, IsReportedAsAProblemAndNothingIsWritten) {
    const auto& c = GetParam();
    SeedOutputDir dir;
    build_consistent(dir);
    c.damage(dir.path());
    const auto before = tree_snapshot(dir.scratch());
    int exit_code = 0;
    std::string err;
    const auto report = inspect_json_of_damaged(dir, exit_code, err);
    ASSERT_NE(exit_code, kTimedOut) << "hung";
    EXPECT_EQ(tree_snapshot(dir.scratch()), before) << "inspect changed the directory";
    if (c.kind.empty() && exit_code == 2) {
        EXPECT_FALSE(err.empty());
        return;
    }
    ASSERT_EQ(exit_code, 1) << report.dump(2) << err;
    std::vector<std::string> kinds;
    for (const auto& problem : report.value("problems", nlohmann::json::array())) {
        kinds.push_back(problem.value("kind", ""));
    }
    EXPECT_FALSE(kinds.empty());
    if (!c.kind.empty()) {
        EXPECT_NE(std::find(kinds.begin(), kinds.end(), c.kind), kinds.end()) << report.dump(2);
    }
}

INSTANTIATE_TEST_SUITE_P(OutputDirs, HostileInspect, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ckpt::testing::hostile
