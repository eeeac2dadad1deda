// The people-facing forms of a run's trace, checked from outside through the binary: the text
// trace has a column for every rank and puts each violation right after the line it judges (as
// the machine trace's "judges" says); the SVG timeline is well-formed XML and rsvg-convert
// renders it to a PNG, also for a 10,000-step, 8-rank run.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"
#include "sim/tests/support/text_lines.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::read_all;
using ckpt::testing::split_lines;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// A small well-formedness check: every element closes, in order, and attribute values are quoted.
bool well_formed_xml(const std::string& xml, std::string& why) {
    std::vector<std::string> open;
    for (std::size_t i = xml.find('<'); i != std::string::npos; i = xml.find('<', i + 1)) {
        if (xml.compare(i, 2, "<?") == 0)
            continue;
        const bool closing = xml[i + 1] == '/';
        std::size_t end = i + 1;
        char quote = 0;
        for (; end < xml.size() && (quote != 0 || xml[end] != '>'); ++end) {
            if (quote == 0 && (xml[end] == '\'' || xml[end] == '"'))
                quote = xml[end];
            else if (quote != 0 && xml[end] == quote)
                quote = 0;
            else if (quote == 0 && xml[end] == '<') {
                why = "'<' inside a tag at " + std::to_string(end);
                return false;
            }
        }
        if (end >= xml.size()) {
            why = "unterminated tag";
            return false;
        }
        const auto body = xml.substr(i + (closing ? 2 : 1), end - i - (closing ? 2 : 1));
        const auto name = body.substr(0, body.find_first_of(" \t\n/"));
        if (closing) {
            if (open.empty() || open.back() != name) {
                why = "</" + name + "> closes nothing open";
                return false;
            }
            open.pop_back();
        } else if (body.empty() || body.back() != '/') {
            open.push_back(name);
        }
    }
    if (!open.empty())
        why = "<" + open.back() + "> never closes";
    return open.empty();
}

class ReadableTrace : public CkptsimProcessTest {
  protected:
    ReadableTrace() : CkptsimProcessTest("ckptsim-readable-trace") {}

    void expect_renders(const std::string& svg_path) {
        std::string why;
        EXPECT_TRUE(well_formed_xml(read_all(svg_path), why)) << why;
        if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
            GTEST_SKIP() << "rsvg-convert is absent (Debian package librsvg2-bin); the SVG was not rendered";
        }
        const auto png = svg_path + ".png";
        ASSERT_EQ(std::system(("rsvg-convert -o '" + png + "' '" + svg_path + "'").c_str()), 0);
        const auto bytes = read_all(png);
        ASSERT_GT(bytes.size(), 1000u);
        EXPECT_EQ(bytes.substr(1, 3), "PNG");
    }
};

// Over the first counterexamples of the swarm (most violations judge an event that writes no line,
// so several runs are read until one judges a line of its own).
TEST_F(ReadableTrace, EveryRankHasAColumnAndEachViolationFollowsTheLineItJudges) {
    int violations = 0;
    int judged_lines = 0;
    for (int seed = 1, files = 0; seed <= 50 && files < 5 && judged_lines == 0; ++files) {
        const auto file = mutant_counterexample("tie_replaces_best", seed);
        ASSERT_FALSE(file.empty());
        seed = std::stoi(file.substr(file.rfind("seed-") + 5)) + 1;
        const auto run = ckptsim({"replay", file, "--trace-text", "--trace", path("trace.jsonl")});
        ASSERT_EQ(run.exit_code, 1) << run.err;
        const auto machine = split_lines(read_all(path("trace.jsonl")));
        const int ranks = json::parse(machine.at(0)).at("ranks").get<int>();
        const auto text = split_lines(run.out);
        const auto header =
            std::find_if(text.begin(), text.end(), [](const auto& l) { return l.find("  line ") == 0; });
        ASSERT_NE(header, text.end()) << run.out;
        for (int r = 0; r < ranks; ++r)
            EXPECT_THAT(*header, HasSubstr(" r" + std::to_string(r) + " ")) << "no column for rank " << r;
        EXPECT_THAT(run.out, Not(HasSubstr("\033["))) << "colour when stdout is not a terminal";
        for (std::size_t i = 0; i < machine.size(); ++i) {
            const auto line = json::parse(machine[i]);
            if (line.at("kind") != "violation")
                continue;
            ++violations;
            const auto row = std::find_if(text.begin(), text.end(), [&](const auto& l) {
                return l.find("! #" + std::to_string(i) + " ") == 0;
            });
            ASSERT_NE(row, text.end()) << "no text row for violation line " << i;
            EXPECT_THAT(*row, HasSubstr("step "));
            EXPECT_THAT(*row, HasSubstr("rank "));
            EXPECT_THAT(*row, HasSubstr("files: "));
            EXPECT_THAT(*(row - 1), HasSubstr("#" + std::to_string(i - 1) + " "))
                << "the row before a violation is the line before it";
            if (line.at("judges").is_null()) {  // the judged event (a crash point, a step) writes no line
                EXPECT_THAT(*row, HasSubstr("event " + line.at("event").get<std::string>() +
                                            " (no line of its own)"));
                continue;
            }
            ++judged_lines;
            const auto judged = line.at("judges").get<std::size_t>();
            for (std::size_t between = judged + 1; between < i; ++between) {
                EXPECT_EQ(json::parse(machine[between]).at("kind"), "violation")
                    << "line " << between << " separates violation " << i << " from the line it judges";
            }
            EXPECT_THAT(*row, HasSubstr("judging line #" + std::to_string(judged)));
        }
    }
    EXPECT_GT(violations, 0);
    EXPECT_GT(judged_lines, 0) << "no violation judged a line of its own";
}

TEST_F(ReadableTrace, AFailedRunShowsTheTraceBeforeItsViolationByDefault) {
    const auto run = ckptsim({"replay", mutant_counterexample()});
    ASSERT_EQ(run.exit_code, 1);
    EXPECT_THAT(run.out, HasSubstr("trace up to the first violation"));
    EXPECT_THAT(run.out, HasSubstr("VIOLATION of P"));
    const auto clean = ckptsim({"run", "--seed", "3", "--mutant", "none"});
    EXPECT_THAT(clean.out, Not(HasSubstr("trace up to the first violation")));
}

TEST_F(ReadableTrace, ACounterexampleTimelineIsWellFormedAndRenders) {
    const auto run = ckptsim({"replay", mutant_counterexample(), "--svg", path("t.svg")});
    ASSERT_EQ(run.exit_code, 1) << run.err;
    EXPECT_THAT(read_all(path("t.svg")), HasSubstr("violated at step"));
    expect_renders(path("t.svg"));
}

TEST_F(ReadableTrace, ATenThousandStepEightRankTimelineStaysSmallAndRenders) {
    const auto run = ckptsim({"run", "--seed", "7", "--ranks", "8", "--max-steps", "10000", "--svg",
                              path("big.svg"), "--svg-time"});
    ASSERT_NE(run.exit_code, 2) << run.err;
    EXPECT_LT(read_all(path("big.svg")).size(), 3'000'000u) << "markers are binned, so the file stays small";
    expect_renders(path("big.svg"));
}

}  // namespace
}  // namespace ckpt::cli
