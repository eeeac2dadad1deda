// Hostile `ckptsim policy` request lines. Each line must be answered (never a crash, a hang or
// a silent acceptance): a line that is not the protocol's gets an input_error naming the line
// and exit status 2; a well-formed request the policy refuses gets its value_error.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/hostile/hostile_harness.hpp"

namespace ckpt::testing::hostile {
namespace {

struct LineCase {
    std::string name;
    std::string line;
    std::string kind;  // the error kind the answer must carry
};

std::ostream& operator<<(std::ostream& out, const LineCase& c) {
    return out << c.name;
}

const std::string kObserve = R"({"observe": {"score": 0.5, "step": 10}})";

std::vector<LineCase> line_cases() {
    return {
        {"invalid_utf8_in_string", "{\"observe\": {\"score\": \"\xFF\xFE\", \"step\": 10}}", "input_error"},
        {"invalid_utf8_in_key", "{\"obs\xC0\xAF\": {}}", "input_error"},
        {"lone_continuation_byte", "\x80", "input_error"},
        {"control_after_json", kObserve + "\x01", "input_error"},
        {"nul_after_json", kObserve + std::string(1, '\0') + "{}", "input_error"},
        {"escape_after_json", kObserve + "\x1b[31m", "input_error"},
        {"nan_token", R"({"observe": {"score": NaN, "step": 10}})", "input_error"},
        {"infinity_token", R"({"observe": {"score": Infinity, "step": 10}})", "input_error"},
        {"number_1e400", R"({"observe": {"score": 1e400, "step": 10}})", "input_error"},
        {"duplicate_key", R"({"observe": {"score": 0.5, "step": 10, "step": 11}})", "input_error"},
        {"duplicate_verb", R"({"observe": {"score": 0.5, "step": 10}, "observe": {"score": 0.1, "step": 9}})",
         "input_error"},
        {"nested_100000", nested(100000), "input_error"},
        {"nested_in_load", R"({"load": )" + nested(5000) + "}", "input_error"},
        {"line_of_2_mib", "{\"observe\": \"" + std::string(std::size_t{2} << 20, 'a') + "\"}", "input_error"},
        {"truncated", R"({"observe": {"score": 0.5,)", "input_error"},
        {"top_level_array", "[]", "input_error"},
        {"two_verbs", R"({"observe": {}, "baseline": {}})", "input_error"},
        {"unknown_verb", R"({"forget": {}})", "input_error"},
        {"unknown_observe_key", R"({"observe": {"score": 0.5, "step": 10, "why": 1}})", "input_error"},
        {"observe_not_object", R"({"observe": [0.5, 10]})", "input_error"},
        {"missing_step", R"({"observe": {"score": 0.5}})", "input_error"},
        {"step_2pow64", R"({"observe": {"score": 0.5, "step": 18446744073709551616}})", "value_error"},
        {"step_negative", R"({"observe": {"score": 0.5, "step": -1}})", "value_error"},
        {"step_fraction", R"({"observe": {"score": 0.5, "step": 10.5}})", "value_error"},
        {"step_boolean", R"({"observe": {"score": 0.5, "step": true}})", "value_error"},
        // The seed coerces with Python's float(), so true and "0.5" are scores; these are not.
        {"score_list", R"({"observe": {"score": [0.5], "step": 10}})", "value_error"},
        {"score_word", R"({"observe": {"score": "half", "step": 10}})", "value_error"},
        {"load_not_object", R"({"load": 5})", "value_error"},
        {"load_future_version", R"({"load": {"version": 99}})", "value_error"},
        {"load_wrong_types",
         R"({"load": {"version": 1, "patience": "three", "patience_start_step": 0, "tie_policy": "reset", "state": {}}})",
         "value_error"},
    };
}

class HostilePolicyLine : public CkptsimProcessTest, public ::testing::WithParamInterface<LineCase> {
  protected:
    HostilePolicyLine() : CkptsimProcessTest("ckptsim-hostile-policy") {}
};

TEST_P(HostilePolicyLine, IsAnsweredWithAnErrorNamingTheLine) {
    const auto& c = GetParam();
    const auto input = dir() / "requests.jsonl";
    // A good line first, so the bad one is line 2 and the policy has a history.
    write_bytes(input, kObserve + "\n" + c.line + "\n");
    const auto done = run_limited({"policy"}, dir(), input);
    ASSERT_NE(done.exit_code, kTimedOut) << "hung";
    EXPECT_EQ(done.exit_code, c.kind == "input_error" ? 2 : 0) << done.err;
    std::vector<nlohmann::json> answers;
    std::istringstream lines(done.out);
    for (std::string line; std::getline(lines, line);) {
        answers.push_back(nlohmann::json::parse(line, nullptr, false));
    }
    ASSERT_EQ(answers.size(), 2U) << done.out.substr(0, 500) << "\nstderr: " << done.err;
    const auto& answer = answers[1];
    ASSERT_TRUE(answer.is_object() && answer.contains("error")) << answer.dump();
    EXPECT_EQ(answer["error"].value("kind", ""), c.kind) << answer.dump();
    if (c.kind == "input_error") {
        EXPECT_EQ(answer["error"].value("message", "").rfind("line 2", 0), 0U) << answer.dump();
    }
}

INSTANTIATE_TEST_SUITE_P(PolicyLines, HostilePolicyLine, ::testing::ValuesIn(line_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ckpt::testing::hostile
