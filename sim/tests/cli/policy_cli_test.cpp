// `ckptsim policy` end to end: the real binary fed a JSONL file on stdin. This protocol is how
// other implementations are compared with ours (issue 2, section 3), so every expected line
// below is written out by hand from the seed's rules, never taken from our own output.
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::Completed;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* kRuntimeStopMessage =
    "checkpoint evaluation policy already requested training stop; create a new run instead of "
    "observing more scores";
constexpr const char* kStepMessage = "checkpoint evaluation step must be a non-negative integer";

// A finished `ckptsim policy` and its stdout parsed, one object per line.
struct PolicyRun : Completed {
    std::vector<json> lines;
};

// A fresh directory per test: the process's stdin, stdout and stderr live there.
class PolicyCli : public CkptsimProcessTest {
  protected:
    PolicyCli() : CkptsimProcessTest("ckptsim-policy-cli") {}

    // Runs `ckptsim policy FLAGS`, its stdin a file holding `input_lines`, each ended by a newline.
    PolicyRun policy(const std::vector<std::string>& flags, const std::vector<std::string>& input_lines) {
        const auto in_path = path("stdin.jsonl");
        {
            std::ofstream input(in_path, std::ios::binary | std::ios::trunc);
            for (const auto& line : input_lines) {
                input << line << '\n';
            }
        }
        std::vector<std::string> args{"policy"};
        args.insert(args.end(), flags.begin(), flags.end());
        PolicyRun done{ckptsim(std::move(args), in_path), {}};
        std::istringstream lines(done.out);
        for (std::string line; std::getline(lines, line);) {
            done.lines.push_back(json::parse(line));  // throws, failing the test, on a non-JSON line
        }
        return done;
    }
};

// The seed's state_dict(), spelled out.
json state_dict(std::int64_t patience, const std::string& tie_policy, std::int64_t start, json best_score,
                json best_step, int streak, int count, bool stop, bool external) {
    return {{"version", 1},
            {"patience", patience},
            {"tie_policy", tie_policy},
            {"patience_start_step", start},
            {"state",
             {{"best_score", best_score},
              {"best_step", best_step},
              {"lower_score_streak", streak},
              {"evaluation_count", count},
              {"stop_requested", stop},
              {"best_is_external", external}}}};
}

// The seed's CheckpointEvaluationDecision.to_dict(), spelled out.
json decision(double score, std::int64_t step, bool save, bool stop, const std::string& reason,
              double best_score, std::int64_t best_step, int streak, int count, bool external = false) {
    return {{"score", score},
            {"step", step},
            {"should_save", save},
            {"should_stop", stop},
            {"reason", reason},
            {"best_score", best_score},
            {"best_step", best_step},
            {"lower_score_streak", streak},
            {"evaluation_count", count},
            {"best_is_external", external}};
}

json error(const std::string& kind, const std::string& message) {
    return {{"kind", kind}, {"message", message}};
}

std::string observe(const std::string& score, const std::string& step) {
    std::string line = R"({"observe": {"score": )";
    line += score;
    line += R"(, "step": )";
    line += step;
    line += "}}";
    return line;
}

TEST_F(PolicyCli, ObserveSequenceRunsThroughInitialImprovedLowerAndStop) {
    const auto run =
        policy({"--patience", "2"}, {observe("0.5", "10"), observe("0.7", "20"), observe("0.6", "30"),
                                     observe("0.5", "40"), observe("0.9", "50")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 5U) << run.out;
    EXPECT_EQ(run.lines[0], json({{"decision", decision(0.5, 10, true, false, "initial", 0.5, 10, 0, 1)},
                                  {"state", state_dict(2, "reset", 0, 0.5, 10, 0, 1, false, false)}}));
    EXPECT_EQ(run.lines[1], json({{"decision", decision(0.7, 20, true, false, "improved", 0.7, 20, 0, 2)},
                                  {"state", state_dict(2, "reset", 0, 0.7, 20, 0, 2, false, false)}}));
    EXPECT_EQ(run.lines[2], json({{"decision", decision(0.6, 30, false, false, "lower", 0.7, 20, 1, 3)},
                                  {"state", state_dict(2, "reset", 0, 0.7, 20, 1, 3, false, false)}}));
    const auto stopped = state_dict(2, "reset", 0, 0.7, 20, 2, 4, true, false);
    EXPECT_EQ(run.lines[3],
              json({{"decision", decision(0.5, 40, false, true, "patience_exhausted", 0.7, 20, 2, 4)},
                    {"state", stopped}}));
    // After the stop the policy refuses to observe, and the refusal changes nothing.
    EXPECT_EQ(run.lines[4],
              json({{"error", error("runtime_error", kRuntimeStopMessage)}, {"state", stopped}}));
}

// 0.5, then 0.4 (lower, streak 1), then 0.5 again: the tie policy alone decides the third answer.
TEST_F(PolicyCli, EachTiePolicyDecidesAnEqualScore) {
    const std::vector<std::string> input{observe("0.5", "10"), observe("0.4", "20"), observe("0.5", "30")};
    struct Case {
        const char* flag;
        json tie;
        json state;
    };
    const std::vector<Case> cases{
        {"reset", decision(0.5, 30, false, false, "tie_reset", 0.5, 10, 0, 3),
         state_dict(3, "reset", 0, 0.5, 10, 0, 3, false, false)},
        {"ignore", decision(0.5, 30, false, false, "tie_ignored", 0.5, 10, 1, 3),
         state_dict(3, "ignore", 0, 0.5, 10, 1, 3, false, false)},
        {"stop", decision(0.5, 30, false, true, "tie_stop", 0.5, 10, 1, 3),
         state_dict(3, "stop", 0, 0.5, 10, 1, 3, true, false)},
        {"count", decision(0.5, 30, false, false, "tie_counted", 0.5, 10, 2, 3),
         state_dict(3, "count", 0, 0.5, 10, 2, 3, false, false)},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.flag);
        const auto run = policy({"--tie-policy", c.flag}, input);
        EXPECT_EQ(run.exit_code, 0) << run.err;
        ASSERT_EQ(run.lines.size(), 3U) << run.out;
        EXPECT_EQ(run.lines[1].at("decision").at("reason"), "lower");
        EXPECT_EQ(run.lines[2], json({{"decision", c.tie}, {"state", c.state}}));
    }
}

TEST_F(PolicyCli, CountedTiesExhaustPatienceAndThePolicyNameIsNormalised) {
    // The seed trims and lower-cases tie_policy, and the state records the normalised name.
    const auto run = policy({"--tie-policy", " COUNT ", "--patience", "2"},
                            {observe("0.5", "10"), observe("0.5", "20"), observe("0.5", "30")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 3U) << run.out;
    EXPECT_EQ(run.lines[1].at("decision"), decision(0.5, 20, false, false, "tie_counted", 0.5, 10, 1, 2));
    EXPECT_EQ(run.lines[2],
              json({{"decision", decision(0.5, 30, false, true, "patience_exhausted", 0.5, 10, 2, 3)},
                    {"state", state_dict(2, "count", 0, 0.5, 10, 2, 3, true, false)}}));
}

TEST_F(PolicyCli, WarmUpNeverConsumesPatienceButStillImproves) {
    // patience 1: any counted drop stops at once, so only warm-up keeps this run alive to 100.
    const auto run = policy({"--patience", "1", "--patience-start-step", "100", "--tie-policy", "count"},
                            {observe("0.5", "10"), observe("0.4", "20"), observe("0.5", "30"),
                             observe("0.6", "40"), observe("0.5", "99"), observe("0.5", "100")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 6U) << run.out;
    EXPECT_EQ(run.lines[0].at("decision").at("reason"), "initial");
    EXPECT_EQ(run.lines[1].at("decision"),
              decision(0.4, 20, false, false, "patience_warmup_lower", 0.5, 10, 0, 2));
    EXPECT_EQ(run.lines[2].at("decision"),
              decision(0.5, 30, false, false, "patience_warmup_tie", 0.5, 10, 0, 3));
    EXPECT_EQ(run.lines[3].at("decision"), decision(0.6, 40, true, false, "improved", 0.6, 40, 0, 4));
    EXPECT_EQ(run.lines[4].at("decision"),
              decision(0.5, 99, false, false, "patience_warmup_lower", 0.6, 40, 0, 5));
    // Step 100 is the boundary itself: not before it, so the drop counts and patience 1 stops.
    EXPECT_EQ(run.lines[5],
              json({{"decision", decision(0.5, 100, false, true, "patience_exhausted", 0.6, 40, 1, 6)},
                    {"state", state_dict(1, "count", 100, 0.6, 40, 1, 6, true, false)}}));
}

TEST_F(PolicyCli, BaselineIsAReferenceNotAnEvaluation) {
    const auto run =
        policy({}, {R"({"baseline": {"score": 0.3}})", observe("0.3", "10"), observe("0.25", "20"),
                    observe("0.35", "30"), R"({"baseline": {"score": 0.9, "step": 40}})"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 5U) << run.out;
    // Step defaults to 0; the baseline counts no evaluation.
    EXPECT_EQ(run.lines[0], json({{"state", state_dict(3, "reset", 0, 0.3, 0, 0, 0, false, true)}}));
    // A first evaluation against a baseline is compared with it, not taken as "initial".
    EXPECT_EQ(run.lines[1].at("decision"), decision(0.3, 10, false, false, "tie_reset", 0.3, 0, 0, 1, true));
    EXPECT_EQ(run.lines[2].at("decision"), decision(0.25, 20, false, false, "lower", 0.3, 0, 1, 2, true));
    EXPECT_EQ(run.lines[3].at("decision"),
              decision(0.35, 30, true, false, "improved", 0.35, 30, 0, 3, false));
    // Once a best exists a baseline leaves the state alone.
    EXPECT_EQ(run.lines[4], json({{"state", state_dict(3, "reset", 0, 0.35, 30, 0, 3, false, false)}}));
}

TEST_F(PolicyCli, BaselineTakesAnExplicitStep) {
    const auto run = policy({}, {R"({"baseline": {"score": 0.2, "step": 5}})"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 1U) << run.out;
    EXPECT_EQ(run.lines[0], json({{"state", state_dict(3, "reset", 0, 0.2, 5, 0, 0, false, true)}}));
}

TEST_F(PolicyCli, LoadRestoresAStateDictAndRefusesAMismatchWithoutChangingIt) {
    const auto saved = state_dict(3, "reset", 0, 0.8, 40, 2, 5, false, false);
    const auto after_stop = state_dict(3, "reset", 0, 0.8, 40, 3, 6, true, false);
    const auto run =
        policy({}, {json({{"load", saved}}).dump(), observe("0.7", "50"),
                    json({{"load", state_dict(4, "reset", 0, 0.1, 1, 0, 1, false, false)}}).dump(),
                    json({{"load", state_dict(3, "stop", 0, 0.1, 1, 0, 1, false, false)}}).dump(),
                    R"({"load": {"version": 2, "state": {}}})", R"({"load": {"best_step": 7}})"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 6U) << run.out;
    EXPECT_EQ(run.lines[0], json({{"state", saved}}));
    // The restored streak of 2 carries on: one more drop reaches patience 3.
    EXPECT_EQ(run.lines[1].at("decision"),
              decision(0.7, 50, false, true, "patience_exhausted", 0.8, 40, 3, 6));
    EXPECT_EQ(run.lines[2], json({{"error", error("value_error",
                                                  "resumed checkpoint evaluation patience does not "
                                                  "match configuration")},
                                  {"state", after_stop}}));
    EXPECT_EQ(run.lines[3], json({{"error", error("value_error",
                                                  "resumed checkpoint evaluation tie_policy does "
                                                  "not match configuration")},
                                  {"state", after_stop}}));
    EXPECT_EQ(run.lines[4],
              json({{"error", error("value_error", "unsupported checkpoint evaluation state version: 2")},
                    {"state", after_stop}}));
    EXPECT_EQ(
        run.lines[5],
        json({{"error", error("value_error", "checkpoint evaluation state has best_step without best_score")},
              {"state", after_stop}}));
}

TEST_F(PolicyCli, LoadAcceptsAFlatPayloadWithoutState) {
    const auto run = policy({}, {R"({"load": {"best_score": 0.6, "best_step": 7, "evaluation_count": 1}})"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 1U) << run.out;
    EXPECT_EQ(run.lines[0], json({{"state", state_dict(3, "reset", 0, 0.6, 7, 0, 1, false, false)}}));
}

TEST_F(PolicyCli, NonFiniteScoresAreValueErrorsThatChangeNothing) {
    const auto run = policy({}, {observe("0.5", "10"), observe(R"("nan")", "20"), observe(R"("inf")", "20"),
                                 observe(R"("-inf")", "20"), R"({"baseline": {"score": "nan"}})"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 5U) << run.out;
    const auto unchanged = state_dict(3, "reset", 0, 0.5, 10, 0, 1, false, false);
    // Python's repr of the rejected float is in the message.
    const std::vector<std::string> spelled{"nan", "inf", "-inf", "nan"};
    for (std::size_t i = 0; i < spelled.size(); ++i) {
        EXPECT_EQ(run.lines[i + 1],
                  json({{"error", error("value_error",
                                        "checkpoint evaluation score must be finite, got " + spelled[i])},
                        {"state", unchanged}}))
            << "line " << i + 2;
    }
}

TEST_F(PolicyCli, StepRulesFollowTheSeed) {
    const auto run = policy({}, {observe("0.5", "true"), observe("0.5", "3.5"), observe("0.5", R"("3")"),
                                 observe("0.5", "-1"), observe("0.5", "3.0")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 5U) << run.out;
    const auto empty = state_dict(3, "reset", 0, nullptr, nullptr, 0, 0, false, false);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(run.lines[i], json({{"error", error("value_error", kStepMessage)}, {"state", empty}}))
            << "line " << i + 1;
    }
    // An integral float is a step: 3.0 becomes the integer 3.
    const auto& accepted = run.lines[4].at("decision");
    EXPECT_EQ(accepted, decision(0.5, 3, true, false, "initial", 0.5, 3, 0, 1));
    EXPECT_TRUE(accepted.at("step").is_number_integer());
}

TEST_F(PolicyCli, InputErrorsAreAnsweredInPlaceAndExitTwo) {
    const auto run =
        policy({}, {observe("0.5", "10"), "{not json", observe("0.4", "20"), R"({"bogus": {}})",
                    R"({"observe": {"score": 0.1, "step": 30, "extra": 1}})", observe("0.3", "40")});
    EXPECT_EQ(run.exit_code, 2);
    ASSERT_EQ(run.lines.size(), 6U) << run.out;
    for (const std::size_t bad : {1U, 3U, 4U}) {
        // An input error carries no state: the line never reached the policy.
        ASSERT_EQ(run.lines[bad].size(), 1U) << run.lines[bad];
        EXPECT_EQ(run.lines[bad].at("error").at("kind"), "input_error") << run.lines[bad];
        EXPECT_FALSE(run.lines[bad].at("error").at("message").get<std::string>().empty());
    }
    EXPECT_THAT(run.lines[3].at("error").at("message").get<std::string>(), HasSubstr("bogus"));
    EXPECT_THAT(run.lines[4].at("error").at("message").get<std::string>(), HasSubstr("extra"));
    // The good lines around them were processed as if the bad ones were absent.
    EXPECT_EQ(run.lines[2].at("decision"), decision(0.4, 20, false, false, "lower", 0.5, 10, 1, 2));
    EXPECT_EQ(run.lines[5].at("decision"), decision(0.3, 40, false, false, "lower", 0.5, 10, 2, 3));
}

TEST_F(PolicyCli, BlankLinesAreSkipped) {
    const auto run = policy({}, {"", observe("0.5", "10"), "   ", "\t", observe("0.6", "20"), ""});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 2U) << run.out;
    EXPECT_EQ(run.lines[0].at("decision").at("reason"), "initial");
    EXPECT_EQ(run.lines[1].at("decision").at("reason"), "improved");
}

TEST_F(PolicyCli, BadFlagsExitTwoNamingTheFlag) {
    struct Case {
        std::vector<std::string> flags;
        const char* named;
    };
    const std::vector<Case> cases{
        {{"--patience", "0"}, "--patience"},
        {{"--patience", "abc"}, "--patience"},
        {{"--tie-policy", "median"}, "--tie-policy"},
        {{"--patience-start-step", "-1"}, "--patience-start-step"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.flags[0] + " " + c.flags[1]);
        const auto run = policy(c.flags, {observe("0.5", "10")});
        EXPECT_EQ(run.exit_code, 2);
        EXPECT_THAT(run.err, HasSubstr(c.named));
        EXPECT_TRUE(run.out.empty()) << run.out;  // no policy ran, so nothing was answered
    }
}

TEST_F(PolicyCli, DoublesRoundTripExactly) {
    // The shortest text that reads back as the same double: 0.1 + 0.2 is not 0.3.
    const double sum = 0.1 + 0.2;
    const std::vector<std::pair<std::string, double>> values{
        {"0.30000000000000004", sum},
        {"0.6666666666666666", 2.0 / 3.0},
        {"1e-07", 1e-7},
        {"5e-324", 4.9406564584124654e-324},
        {"1.7976931348623157e+308", 1.7976931348623157e308},
    };
    std::vector<std::string> input;
    for (const auto& [text, value] : values) {
        std::string load = R"({"load": {"best_score": )";
        load += text;
        load += R"(, "best_step": 1, "evaluation_count": 1}})";
        input.push_back(load);
        input.push_back(observe(text, "2"));
    }
    const auto run = policy({"--tie-policy", "ignore"}, input);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run.lines.size(), 2 * values.size()) << run.out;
    std::istringstream raw(run.out);
    std::vector<std::string> raw_lines;
    for (std::string line; std::getline(raw, line);) {
        raw_lines.push_back(line);
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        SCOPED_TRACE(values[i].first);
        const auto& loaded = run.lines[2 * i].at("state").at("state").at("best_score");
        const auto& observed = run.lines[2 * i + 1].at("decision");
        EXPECT_EQ(loaded.get<double>(), values[i].second);
        EXPECT_EQ(observed.at("score").get<double>(), values[i].second);
        // Each load replaces the whole state, so every observation meets only its own value: a tie
        // proves the loaded best and the observed score parsed to the same double.
        EXPECT_EQ(observed.at("reason"), "tie_ignored");
        EXPECT_THAT(raw_lines[2 * i], HasSubstr(values[i].first));
        EXPECT_THAT(raw_lines[2 * i + 1], HasSubstr(values[i].first));
    }
}

}  // namespace
}  // namespace ckpt::cli
