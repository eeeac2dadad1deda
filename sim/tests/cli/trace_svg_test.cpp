// The SVG timeline read back from the file the binary writes, held to what a reader needs: the step
// axis is labelled in whole steps only (a 1- or 2-step run too); every count agrees with its noun
// ("1 rank", "2 ranks"); no two labels overlap, by the boxes svg_text.hpp gives their positions in
// the file (the same estimate the layout places them by); markers of different incarnations are
// drawn apart, each incarnation in a stretch of x of its own, with an arc from the checkpoint each
// resume names to the resume; and a 10,000-step, 8-rank run with 1,000 evaluations stays small.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/cli/svg_text.hpp"
#include "sim/tests/support/subprocess.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::read_all;

struct SvgText {
    double x = 0, y = 0, size = 0;
    std::string anchor, css_class, text;
};

std::string svg_unescaped(std::string text) {
    for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&apos;", "'"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
        for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1))
            text.replace(at, entity.size(), c);
    }
    return text;
}

std::map<std::string, std::string> svg_attributes(const std::string& tag) {
    static const std::regex attribute(R"(([a-z-]+)=['"]([^'"]*)['"])");
    std::map<std::string, std::string> out;
    for (std::sregex_iterator it(tag.begin(), tag.end(), attribute), end; it != end; ++it)
        out[(*it)[1]] = (*it)[2];
    return out;
}

std::vector<SvgText> svg_texts(const std::string& svg) {
    static const std::regex text(R"(<text([^>]*)>([^<]*)</text>)");
    std::vector<SvgText> out;
    for (std::sregex_iterator it(svg.begin(), svg.end(), text), end; it != end; ++it) {
        auto a = svg_attributes((*it)[1]);
        out.push_back({std::stod(a.at("x")), std::stod(a.at("y")), std::stod(a.at("font-size")),
                       a.count("text-anchor") != 0 ? a["text-anchor"] : "start", a["class"],
                       svg_unescaped((*it)[2])});
    }
    return out;
}

// A marker group: its tooltip ("commit: 2 markers, steps 4..9, incarnation 1") and where it is.
struct TimelineMarker {
    std::string label;
    long long count = 0;
    long long first_step = 0, last_step = 0;
    int incarnation = 0;
    double x = 0;
};

std::vector<TimelineMarker> timeline_markers(const std::string& svg) {
    static const std::regex marker(
        R"(<g><title>([^<]*): (\d+) markers?, steps? (\d+)(?:\.\.(\d+))?(?:, incarnation (\d+))?</title><use href='#[a-z_]+' x='([-0-9.]+)')");
    std::vector<TimelineMarker> out;
    for (std::sregex_iterator it(svg.begin(), svg.end(), marker), end; it != end; ++it) {
        const auto& m = *it;
        out.push_back({m[1], std::stoll(m[2]), std::stoll(m[3]),
                       std::stoll(m[4].matched ? m[4].str() : m[3].str()), m[5].matched ? std::stoi(m[5]) : 0,
                       std::stod(m[6])});
    }
    return out;
}

// Each resume arc's two ends: from the checkpoint's save to the resume.
std::vector<std::pair<double, double>> resume_arcs_in(const std::string& svg) {
    static const std::regex arc(
        R"(<path d='M([-0-9.]+) [-0-9.]+ C[^']* ([-0-9.]+) [-0-9.]+'[^>]*class='resume-arc')");
    std::vector<std::pair<double, double>> out;
    for (std::sregex_iterator it(svg.begin(), svg.end(), arc), end; it != end; ++it)
        out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
    return out;
}

class SvgTimeline : public CkptsimProcessTest {
  protected:
    SvgTimeline() : CkptsimProcessTest("ckptsim-svg-timeline") {}

    // The walkthrough's counterexample (docs/reading-a-run.md): 9 steps on 1 rank, a stop at step
    // 8, a crash, and a resume from checkpoint-7 that goes back to step 7.
    std::string minimal_counterexample() {
        const auto run =
            ckptsim({"run", "--seed", "17", "--mutant", "stop_not_restored", "--out", path("failures")});
        EXPECT_EQ(run.exit_code, 1) << run.err;
        const auto shrink = ckptsim(
            {"shrink", path("failures") + "/seed-17-stop_not_restored.json", "--out", path("minimal.json")});
        EXPECT_EQ(shrink.exit_code, 0) << shrink.err;
        return path("minimal.json");
    }

    std::string timeline(std::vector<std::string> args, const std::string& name) {
        args.insert(args.end(), {"--svg", path(name)});
        const auto run = ckptsim(args);
        EXPECT_NE(run.exit_code, 2) << run.err;
        return read_all(path(name));
    }

    // Runs of several shapes, by name: 1, 2 and 10,000 steps, one rank and eight, one incarnation and
    // seven, ten violations; x the training step unless the name ends in "time".
    std::vector<std::pair<std::string, std::string>> timelines() {
        const auto minimal = minimal_counterexample();
        const auto tie = mutant_counterexample("tie_replaces_best");
        return {
            {"minimal", timeline({"replay", minimal}, "minimal.svg")},
            {"minimal time", timeline({"replay", minimal, "--svg-time"}, "minimal-time.svg")},
            {"tie_replaces_best", timeline({"replay", tie}, "tie.svg")},
            {"tie_replaces_best time", timeline({"replay", tie, "--svg-time"}, "tie-time.svg")},
            {"1 step", timeline({"run", "--seed", "5", "--max-steps", "1"}, "one.svg")},
            {"2 steps", timeline({"run", "--seed", "5", "--max-steps", "2", "--no-faults"}, "two.svg")},
            {"7 incarnations", timeline({"run", "--seed", "81"}, "seven.svg")},
            {"7 incarnations time", timeline({"run", "--seed", "81", "--svg-time"}, "seven-time.svg")},
            {"8 ranks", timeline({"run", "--seed", "7", "--ranks", "8", "--max-steps", "10000"}, "big.svg")},
            {"10000 steps", timeline({"replay", long_run()}, "long.svg")}};
    }

    // The 10,000-step, 8-rank run that saves and evaluates every 10 steps and never stops early.
    std::string long_run() {
        std::ofstream(path("long.json"))
            << R"({"scenario": {"seed": 1, "ranks": 8, "max_steps": 10000, "steps_per_epoch": 1000,
                   "save_strategy": "steps", "save_steps": 10, "policy": {"patience": 1000000}, "faults": []}})";
        return path("long.json");
    }
};

bool is_nice_spacing(long long d) {  // 1, 2 or 5 x 10^k
    for (long long decade = 1; decade <= d; decade *= 10) {
        if (d == decade || d == 2 * decade || d == 5 * decade)
            return true;
    }
    return false;
}

TEST_F(SvgTimeline, StepAxisLabelsAreWholeSteps) {
    for (const auto& [name, svg] : timelines()) {
        std::vector<SvgText> ticks;
        for (const auto& t : svg_texts(svg)) {
            if (t.css_class == "tick")
                ticks.push_back(t);
        }
        ASSERT_GE(ticks.size(), 2u) << name;
        if (name.ends_with("time")) {
            for (const auto& t : ticks)
                EXPECT_THAT(t.text, ::testing::MatchesRegex(R"([0-9]+(\.[0-9]+)?)")) << name;
            continue;
        }
        for (const auto& t : ticks)
            EXPECT_THAT(t.text, ::testing::MatchesRegex("[0-9]+")) << name << ": a fractional step";
        std::sort(ticks.begin(), ticks.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
        if (name == "1 step" || name == "2 steps") {
            std::vector<std::string> labels;
            for (const auto& t : ticks)
                labels.push_back(t.text);
            EXPECT_THAT(labels, ::testing::ElementsAreArray(name == "1 step"
                                                                ? std::vector<std::string>{"0", "1"}
                                                                : std::vector<std::string>{"0", "1", "2"}))
                << name;
        }
        if (name == "10000 steps") {  // one panel: between its ends, the multiples of one round spacing
            std::vector<long long> inner;
            for (std::size_t i = 1; i + 1 < ticks.size(); ++i)
                inner.push_back(std::stoll(ticks[i].text));
            ASSERT_GE(inner.size(), 3u);
            const auto spacing = inner[1] - inner[0];
            EXPECT_TRUE(is_nice_spacing(spacing)) << spacing;
            for (std::size_t i = 1; i < inner.size(); ++i)
                EXPECT_EQ(inner[i] - inner[i - 1], spacing) << name;
        }
    }
}

TEST_F(SvgTimeline, EveryCountAgreesWithItsNoun) {
    static const std::regex count(
        R"((^|[^0-9.])([0-9]+) (rank|evaluation|incarnation|violation|marker)(s?)\b)");
    for (const auto& [name, svg] : timelines()) {
        for (std::sregex_iterator it(svg.begin(), svg.end(), count), end; it != end; ++it) {
            const bool one = (*it)[2] == "1";
            EXPECT_EQ(one, (*it)[4].length() == 0)
                << name << ": \"" << (*it)[2] << " " << (*it)[3] << (*it)[4] << "\"";
        }
        if (name == "minimal") {
            for (const auto* phrase : {"1 rank,", "2 evaluations", "2 incarnations", ": 1 marker,"})
                EXPECT_THAT(svg, ::testing::HasSubstr(phrase)) << name;
        }
    }
}

TEST_F(SvgTimeline, NoTwoLabelsOverlap) {
    for (const auto& [name, svg] : timelines()) {
        const auto texts = svg_texts(svg);
        ASSERT_GT(texts.size(), 20u) << name;
        std::vector<svg::Box> boxes;
        for (const auto& t : texts)
            boxes.push_back(svg::text_box(t.x, t.y, t.size, t.anchor, t.text));
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                EXPECT_FALSE(boxes[i].overlaps(boxes[j]))
                    << name << ": \"" << texts[i].text << "\" at (" << texts[i].x << ", " << texts[i].y
                    << ") overlaps \"" << texts[j].text << "\" at (" << texts[j].x << ", " << texts[j].y
                    << ")";
            }
        }
    }
    // The first tie_replaces_best counterexamples whose violations fall at two steps or more (the
    // text trace's "[step N" of each violation row says where): each such step keeps a label.
    int judged = 0;
    for (int seed = 1; seed <= 50 && judged < 2; ++seed) {
        const auto file = mutant_counterexample("tie_replaces_best", seed);
        ASSERT_FALSE(file.empty());
        seed = std::stoi(file.substr(file.rfind("seed-") + 5));
        const auto text = ckptsim({"replay", file, "--trace-text"}).out;
        static const std::regex violation_step(R"(\n! #[0-9]+ [^\n]*\[step ([0-9]+),)");
        std::set<std::string> steps;
        for (std::sregex_iterator it(text.begin(), text.end(), violation_step), end; it != end; ++it)
            steps.insert((*it)[1]);
        if (steps.size() < 2)
            continue;
        ++judged;
        const auto svg = svg_texts(timeline({"replay", file}, "tie-" + std::to_string(seed) + ".svg"));
        EXPECT_GE(std::count_if(
                      svg.begin(), svg.end(),
                      [](const SvgText& t) { return t.text.find("violated at step") != std::string::npos; }),
                  2)
            << "seed " << seed << ": the violations at different steps each keep a label";
    }
    EXPECT_GT(judged, 0) << "no counterexample of seeds 1..50 has violations at two steps";
}

TEST_F(SvgTimeline, EachIncarnationHasItsOwnStretchOfXAndEachResumeAnArcFromItsCheckpoint) {
    for (const auto& [name, svg] : timelines()) {
        const auto markers = timeline_markers(svg);
        ASSERT_FALSE(markers.empty()) << name;
        std::map<int, std::pair<double, double>> range;  // incarnation -> its markers' x range
        for (const auto& m : markers) {
            auto [it, fresh] = range.try_emplace(m.incarnation, m.x, m.x);
            it->second = {std::min(it->second.first, m.x), std::max(it->second.second, m.x)};
        }
        for (auto it = range.begin(); it != range.end() && std::next(it) != range.end(); ++it) {
            EXPECT_LT(it->second.second + 10, std::next(it)->second.first)
                << name << ": incarnation " << it->first << "'s markers reach those of incarnation "
                << std::next(it)->first;
        }
        // One arc per incarnation after the first: each one with markers, and each launch a refusal
        // or an assertion at on_train_begin ended before its first step (it draws no marker).
        const auto arcs = resume_arcs_in(svg).size();
        EXPECT_GE(arcs, range.size() - 1) << name << ": one arc per resume";
        EXPECT_LE(arcs, static_cast<std::size_t>(range.rbegin()->first)) << name << ": one arc per resume";
    }
    // The walkthrough's run: step 7 is drawn twice, once per incarnation, and the arc goes from
    // checkpoint-7's commit (incarnation 0) to the resume (incarnation 1).
    const auto svg = read_all(path("minimal.svg"));
    const auto markers = timeline_markers(svg);
    std::map<int, std::vector<double>> step_7;
    const TimelineMarker *commit = nullptr, *resume = nullptr;
    for (const auto& m : markers) {
        if (m.first_step == 7 && m.last_step == 7)
            step_7[m.incarnation].push_back(m.x);
        if (m.label == "commit" && m.first_step == 7 && m.incarnation == 0)
            commit = &m;
        if (m.label == "resume" && m.incarnation == 1)
            resume = &m;
    }
    ASSERT_EQ(step_7.size(), 2u) << "step 7 has markers in both incarnations";
    for (const double x0 : step_7[0]) {
        for (const double x1 : step_7[1])
            EXPECT_GT(std::abs(x0 - x1), 10) << "step 7 of the two incarnations at one place";
    }
    ASSERT_NE(commit, nullptr);
    ASSERT_NE(resume, nullptr);
    const auto arcs = resume_arcs_in(svg);
    ASSERT_EQ(arcs.size(), 1u);
    EXPECT_DOUBLE_EQ(arcs[0].first, commit->x);
    EXPECT_DOUBLE_EQ(arcs[0].second, resume->x);
    EXPECT_THAT(svg, ::testing::HasSubstr(
                         "incarnation 1 resumes from checkpoint-7 (step 7), saved in incarnation 0"));
}

TEST_F(SvgTimeline, ATenThousandStepEightRankRunWithAThousandEvaluationsStaysUnder300KB) {
    const auto file = long_run();
    for (const bool time : {false, true}) {
        std::vector<std::string> args = {"replay", file};
        if (time)
            args.push_back("--svg-time");
        const auto svg = timeline(args, time ? "long-time.svg" : "long.svg");
        EXPECT_THAT(svg, ::testing::HasSubstr("8 ranks, 1000 evaluations"));
        EXPECT_LT(svg.size(), 300'000u) << (time ? "--svg-time" : "steps");
    }
}

}  // namespace
}  // namespace ckpt::cli
