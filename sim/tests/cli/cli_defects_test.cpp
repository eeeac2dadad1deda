// The command-line defects a new user met, one test each: explore by time alone, Ctrl-C keeping
// what was found, a replay that writes only when asked, --mutant none, --version and the format
// stamps on files and JSON, JUnit output, and a summary whose figures explain themselves.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::read_all;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class CliDefects : public CkptsimProcessTest {
  protected:
    CliDefects() : CkptsimProcessTest("ckptsim-cli-defects") {}

    std::string write_file(const std::string& name, const std::string& text) const {
        const auto full = path(name);
        std::ofstream(full, std::ios::binary | std::ios::trunc) << text;
        return full;
    }
};

TEST_F(CliDefects, ExploreByTimeAloneRunsUntilTheClockEnds) {
    const auto run = ckptsim({"explore", "--time", "1", "--jobs", "2", "--json", "--out", path("failures")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto summary = json::parse(run.out);
    EXPECT_GT(summary.at("scenarios").get<std::uint64_t>(), 0U);
    EXPECT_EQ(summary.at("first_seed"), 1);
    EXPECT_EQ(summary.at("last_seed").get<std::uint64_t>(), summary.at("scenarios").get<std::uint64_t>());
}

TEST_F(CliDefects, ExploreWithSeedsAndTimeStopsAtWhicheverComesFirst) {
    const auto run = ckptsim({"explore", "--seeds", "20", "--time", "600", "--json", "--out", path("f")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(json::parse(run.out).at("scenarios"), 20);
}

TEST_F(CliDefects, CtrlCDuringExplorePrintsTheSummarySoFarAndExits130) {
    auto started = ckpt::testing::start_process(
        {CKPTSIM_BINARY, "explore", "--time", "60", "--jobs", "2", "--json", "--out", path("failures")},
        dir());
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ASSERT_EQ(kill(started.pid, SIGINT), 0);
    const auto run = ckpt::testing::finish_process(started);
    EXPECT_EQ(run.exit_code, 130) << run.err;
    EXPECT_THAT(run.err, HasSubstr("interrupted"));
    const auto summary = json::parse(run.out);
    EXPECT_EQ(summary.at("interrupted"), true);
    EXPECT_GT(summary.at("scenarios").get<std::uint64_t>(), 0U);
}

TEST_F(CliDefects, ReplayWritesNothingUnlessAskedTo) {
    const auto file = mutant_counterexample();
    ASSERT_FALSE(file.empty());
    const auto replay = ckptsim({"replay", file});
    EXPECT_EQ(replay.exit_code, 1) << replay.err;
    EXPECT_FALSE(std::filesystem::exists(dir() / "ckptsim-failures"));
    EXPECT_THAT(replay.out, HasSubstr("replay: ckptsim replay " + file));

    const auto kept = ckptsim({"replay", file, "--out", path("kept")});
    EXPECT_EQ(kept.exit_code, 1);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(path("kept")), {}), 1);
}

TEST_F(CliDefects, MutantNoneShowsTheRealCodeBesideTheMutant) {
    const auto file = mutant_counterexample();
    ASSERT_FALSE(file.empty());
    const auto real = ckptsim({"replay", file, "--mutant", "none", "--json"});
    EXPECT_EQ(real.exit_code, 0) << real.out << real.err;
    EXPECT_FALSE(json::parse(real.out).contains("mutant"));
    EXPECT_EQ(ckptsim({"run", "--seed", "1", "--mutant", "none", "--out", path("f")}).exit_code, 0);
    const auto unknown = ckptsim({"run", "--seed", "1", "--mutant", "nonesuch"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_THAT(unknown.err, HasSubstr("--mutant"));
}

TEST_F(CliDefects, VersionIsPrintedAndStampedOnFilesAndJson) {
    const auto version = ckptsim({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(std::regex_search(version.out,
                                  std::regex("^ckptsim [0-9]+\\.[0-9]+\\.[0-9]+ \\(scenario format 2\\)")))
        << version.out;

    const auto file = json::parse(read_all(mutant_counterexample()));
    EXPECT_TRUE(file.at("ckptsim_version").is_string());
    EXPECT_EQ(file.at("scenario_format"), 2);
    const auto run = json::parse(ckptsim({"explore", "--seeds", "3", "--json", "--out", path("f")}).out);
    EXPECT_TRUE(run.at("ckptsim_version").is_string());
    EXPECT_EQ(run.at("scenario_format"), 2);
    EXPECT_EQ(run.at("shard"), (json{{"index", 1}, {"count", 1}}));
    const auto shard = json::parse(ckptsim({"explore", "--seeds", "6", "--shard", "2/3", "--json"}).out);
    EXPECT_EQ(shard.at("shard"), (json{{"index", 2}, {"count", 3}}));
}

TEST_F(CliDefects, ReplayRefusesAScenarioFormatItDoesNotKnow) {
    const auto future = write_file("future.json", R"({"scenario_format": 99, "ckptsim_version": "9.0.0",
        "scenario": {"seed": 1}})");
    const auto run = ckptsim({"replay", future});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("scenario_format"));
    EXPECT_THAT(run.err, HasSubstr("9.0.0"));
    // Files from before the stamps existed are format 1 and still replay.
    const auto old = write_file("old.json", R"({"scenario": {"seed": 1}})");
    EXPECT_EQ(ckptsim({"replay", old}).exit_code, 0);
}

TEST_F(CliDefects, JunitHasOneTestCasePerPropertyAndAFailurePerViolation) {
    const auto xml_path = path("report.xml");
    const auto run = ckptsim({"explore", "--seeds", "40", "--mutant", "tie_replaces_best", "--junit",
                              xml_path, "--out", path("f")});
    EXPECT_EQ(run.exit_code, 1);
    const auto xml = read_all(xml_path);
    const auto count = [&](const std::string& pattern) {
        const std::regex re(pattern);
        return std::distance(std::sregex_iterator(xml.begin(), xml.end(), re), std::sregex_iterator());
    };
    EXPECT_EQ(count("<testcase "), 14);
    EXPECT_GT(count("<failure "), 0);
    EXPECT_THAT(xml, HasSubstr("ckptsim replay "));
    EXPECT_THAT(xml, HasSubstr("name=\"P11 rules\""));
}

TEST_F(CliDefects, TheSummaryExplainsItsFigures) {
    const auto run = ckptsim({"explore", "--seeds", "300", "--out", path("f")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("ended by the watchdog and restarted"));
    EXPECT_THAT(run.out, HasSubstr("stopped by the policy"));
    EXPECT_THAT(run.out, HasSubstr("steps retrained after a resume count again"));
    EXPECT_THAT(run.out, Not(HasSubstr("trained to the end or stopped by the policy")));
}

}  // namespace
}  // namespace ckpt::cli
