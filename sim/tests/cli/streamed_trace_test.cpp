// `run` and `replay` spool the trace to a temporary file instead of holding it (issue 14): what
// they write and print must stay exactly what the run's lines are. The --trace file and
// `--trace -` are byte for byte the lines an in-process run keeps, and the window a failed run
// prints is, row for row, that part of the whole readable trace.
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::testing {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        lines.push_back(text.substr(start, end - start));
    }
    return lines;
}

// The trace an in-process run of `file` keeps, each line followed by '\n', and its hash.
std::pair<std::string, std::string> kept_trace(const std::string& file) {
    const auto result = sim::run_scenario_file(sim::ScenarioFile::load(file), {.keep_trace = true});
    std::string bytes;
    for (const auto& line : result.trace) {
        bytes.append(line).push_back('\n');
    }
    return {bytes, result.trace_hash};
}

class StreamedTrace : public CkptsimProcessTest {
  protected:
    StreamedTrace() : CkptsimProcessTest("ckptsim-streamed-trace") {}

    void expect_trace_as_kept(const std::string& file, int exit_code) {
        const auto [kept, hash] = kept_trace(file);
        ASSERT_GT(lines_of(kept).size(), 3U);
        const auto written = ckptsim({"replay", file, "--trace", path("out.jsonl"), "--json"});
        EXPECT_EQ(written.exit_code, exit_code) << written.err;
        EXPECT_EQ(read_all(path("out.jsonl")), kept);
        EXPECT_EQ(nlohmann::json::parse(written.out).at("trace_hash"), hash);
        // To stdout the trace comes first, then the report on its own last line.
        const auto printed = ckptsim({"replay", file, "--trace", "-", "--json"});
        EXPECT_EQ(printed.exit_code, exit_code) << printed.err;
        ASSERT_GE(printed.out.size(), kept.size());
        EXPECT_EQ(printed.out.substr(0, kept.size()), kept);
        EXPECT_EQ(nlohmann::json::parse(printed.out.substr(kept.size())).at("trace_hash"), hash);
    }
};

TEST_F(StreamedTrace, TheWrittenTraceIsTheKeptOneByteForByte) {
    const auto crash = path("crash.json");
    std::ofstream(crash)
        << R"({"scenario": {"seed": 3, "ranks": 2, "max_steps": 100, "steps_per_epoch": 100,)"
        << R"( "save_steps": 10, "faults": [{"action": "crash", "point": "after_evaluation",)"
        << R"( "occurrence": 2}]}})";
    expect_trace_as_kept(crash, 0);
    expect_trace_as_kept(mutant_counterexample(), 1);
}

TEST_F(StreamedTrace, AFailedRunsWindowIsThatPartOfTheWholeReadableTrace) {
    const auto file = mutant_counterexample();
    const auto window = ckptsim({"replay", file});
    const auto whole = ckptsim({"replay", file, "--trace-text"});
    ASSERT_EQ(window.exit_code, 1);
    ASSERT_EQ(whole.exit_code, 1);
    // "trace up to the first violation (lines A..B of N; ...)", the header, then rows A..B.
    const auto out = lines_of(window.out);
    ASSERT_GE(out.size(), 3U);
    ASSERT_THAT(out[0], HasSubstr("trace up to the first violation (lines "));
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t total = 0;
    ASSERT_EQ(std::sscanf(out[0].c_str(), "trace up to the first violation (lines %zu..%zu of %zu", &first,
                          &last, &total),
              3)
        << out[0];
    const auto all = lines_of(whole.out);
    ASSERT_GT(all.size(), total);  // the header, a row per line, then the report
    EXPECT_EQ(out[1], all[0]);
    for (std::size_t row = first; row <= last; ++row) {
        ASSERT_LT(2 + row - first, out.size());
        EXPECT_EQ(out[2 + row - first], all[1 + row]) << "row " << row;
    }
    EXPECT_EQ(lines_of(kept_trace(file).first).size(), total);
}

}  // namespace
}  // namespace ckpt::testing
