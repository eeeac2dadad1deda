// Hostile scenario files given to `ckptsim replay`: each must be refused with exit status 2 and
// a message naming the file's defect (the field, or what is wrong with the bytes) within the
// time limit, including /dev/zero, a FIFO, a 1 GiB file and 100,000-deep nesting.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/tests/hostile/hostile_harness.hpp"

namespace ckpt::testing::hostile {
namespace {

namespace fs = std::filesystem;

// A scenario the loader accepts; cases replace one part of it.
const std::string kValid = R"({"seed": 7, "ranks": 1, "max_steps": 30, "save_steps": 10})";

struct ScenarioCase {
    std::string name;
    // Makes the file at the path given (or returns another path to replay instead).
    std::function<std::string(const fs::path&)> make;
    std::string named;  // what stderr must mention
};

std::ostream& operator<<(std::ostream& out, const ScenarioCase& c) {
    return out << c.name;
}

ScenarioCase text_case(std::string name, std::string text, std::string named) {
    return {std::move(name),
            [text = std::move(text)](const fs::path& path) {
                write_bytes(path, text);
                return path.string();
            },
            std::move(named)};
}

std::string with(const std::string& key, const std::string& value) {
    return R"({"seed": 7, "ranks": 1, "max_steps": 30, "save_steps": 10, ")" + key + "\": " + value + "}";
}

std::vector<ScenarioCase> scenario_cases() {
    std::vector<ScenarioCase> cases{
        text_case("empty", "", "not valid JSON"),
        text_case("truncated", kValid.substr(0, kValid.size() / 2), "not valid JSON"),
        text_case("invalid_utf8",
                  R"({"seed": 7, "note": "caf)"
                  "\xC3\x28"
                  R"("})",
                  "UTF-8"),
        text_case("control_after_json", kValid + "\x01", "control character"),
        text_case("nul_after_json", kValid + std::string(1, '\0') + "junk", "control character"),
        text_case("nan_token", with("max_steps", "NaN"), "not valid JSON"),
        text_case("infinity_token", R"({"seed": Infinity})", "not valid JSON"),
        text_case("seed_2pow64", R"({"seed": 18446744073709551616})", "seed"),
        text_case("seed_negative", R"({"seed": -1})", "seed"),
        text_case("number_1e400", R"({"seed": 1e400})", "scenario"),
        text_case("max_steps_fraction", R"({"seed": 7, "max_steps": 30.5})", "max_steps"),
        text_case("max_steps_whole_float", R"({"seed": 7, "max_steps": 30.0})", "max_steps"),
        text_case("ranks_boolean", R"({"seed": 7, "ranks": true})", "ranks"),
        text_case("save_steps_negative", R"({"seed": 7, "save_steps": -10})", "save_steps"),
        text_case("ranks_string", R"({"seed": 7, "ranks": "2"})", "ranks"),
        text_case("policy_not_object", with("policy", "[]"), "policy"),
        text_case("patience_string", with("policy", R"({"patience": "3"})"), "patience"),
        text_case("tie_policy_number", with("policy", R"({"tie_policy": 1})"), "tie_policy"),
        text_case("faults_not_array", with("faults", "{}"), "faults"),
        text_case("fault_rank_fraction", with("faults", R"([{"rank": 0.5}])"), "faults[0]"),
        text_case("gate_steps_strings", with("gate_steps", R"(["10"])"), "gate_steps"),
        text_case("score_kind_unknown", with("score", R"({"kind": "oracle"})"), "score"),
        text_case("unknown_top_key", with("colour", "1"), "colour"),
        text_case("unknown_policy_key", with("policy", R"({"patience": 3, "extra": 1})"), "extra"),
        text_case("duplicate_key", R"({"seed": 7, "seed": 8})", "duplicate key"),
        text_case("top_level_array", "[1, 2]", "object"),
        text_case("nested_100000", nested(100000), "nesting"),
        text_case("wrapper_unknown_key", R"({"scenario": {"seed": 7}, "extra": 1})", "extra"),
        text_case("wrapper_mutant_unknown", R"({"scenario": {"seed": 7}, "mutant": "nope"})", "mutant"),
        text_case("wrapper_expected_bad", R"({"scenario": {"seed": 7}, "expected": {"P1": "maybe"}})",
                  "expected"),
    };
    cases.push_back(
        {"dev_zero", [](const fs::path&) { return std::string("/dev/zero"); }, "not a regular file"});
    cases.push_back({"fifo",
                     [](const fs::path& path) {
                         make_fifo(path);
                         return path.string();
                     },
                     "not a regular file"});
    cases.push_back({"symlink_to_dev_zero",
                     [](const fs::path& path) {
                         replace_with_symlink(path, "/dev/zero");
                         return path.string();
                     },
                     "not a regular file"});
    cases.push_back({"symlink_loop",
                     [](const fs::path& path) {
                         replace_with_symlink(path, path.filename().string());
                         return path.string();
                     },
                     "symbolic links"});
    cases.push_back({"directory",
                     [](const fs::path& path) {
                         fs::create_directories(path);
                         return path.string();
                     },
                     "directory"});
    cases.push_back({"one_gib",
                     [](const fs::path& path) {
                         write_sparse_gib(path);
                         return path.string();
                     },
                     "MiB"});
    cases.push_back(
        {"missing", [](const fs::path& path) { return path.string() + ".absent"; }, "No such file"});
    return cases;
}

class HostileScenario : public CkptsimProcessTest, public ::testing::WithParamInterface<ScenarioCase> {
  protected:
    HostileScenario() : CkptsimProcessTest("ckptsim-hostile-scenario") {}
};

TEST(HostileScenarioBaseline, TheValidScenarioReplays) {
    TempDir dir("ckptsim-hostile-scenario");
    write_bytes(dir.at("valid.json"), kValid);
    const auto done = run_limited({"replay", dir.at("valid.json")}, dir.path());
    EXPECT_TRUE(done.exit_code == 0 || done.exit_code == 1) << done.err;
}

TEST_P(HostileScenario, IsRefusedWithExitTwoNamingTheDefect) {
    const auto& c = GetParam();
    const auto file = c.make(dir() / "scenario.json");
    const auto done = run_limited({"replay", file}, dir());
    EXPECT_EQ(done.exit_code, 2) << "stdout: " << done.out.substr(0, 500) << "\nstderr: " << done.err;
    EXPECT_NE(done.err.find(c.named), std::string::npos)
        << "stderr does not mention " << c.named << ": " << done.err;
}

INSTANTIATE_TEST_SUITE_P(ScenarioFiles, HostileScenario, ::testing::ValuesIn(scenario_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ckpt::testing::hostile
