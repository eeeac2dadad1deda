// `ckptsim shrink` and the shrunk counterexamples of `ckptsim mutants`, end to end: a mutant's
// counterexample shrinks to a scenario that still violates the same property under the same
// mutant, no larger in any dimension and smaller in one (sizes measured here, from the scenario
// and a run of it, never by the shrinker); one printed line per reduction; the same output for the
// same input; exit 1 for a scenario that does not fail, 2 for a bad file or property.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/swarm.hpp"
#include "sim/tests/support/subprocess.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::read_all;
using nlohmann::json;
using ::testing::HasSubstr;

// A scenario's size, restated from its JSON and one run of it.
struct MeasuredSize {
    std::size_t faults = 0;
    std::int64_t steps = 0;
    int ranks = 0;
    std::uint64_t evaluations = 0;
    std::size_t script = 0;
    std::size_t settings = 0;  // scenario-file fields away from a default scenario's
};

std::size_t settings_away_from_default(const sim::Scenario& scenario) {
    // The dimensions measured on their own, and the step cadence a rescaled time axis moves.
    const std::vector<std::string> measured{"seed",   "ranks", "max_steps",      "save_steps",
                                            "faults", "score", "steps_per_epoch"};
    const auto defaults = sim::Scenario{}.to_json();
    const auto fields = scenario.to_json();
    std::size_t count = 0;
    for (const auto& [key, value] : fields.items()) {
        const bool is_measured = std::find(measured.begin(), measured.end(), key) != measured.end();
        count += !is_measured && (!defaults.contains(key) || defaults.at(key) != value) ? 1 : 0;
    }
    for (const auto* key : {"kind", "noisy_replay", "external_baseline"}) {
        count += fields.at("score").at(key) != defaults.at("score").at(key) ? 1 : 0;
    }
    return count;
}

MeasuredSize measure(const sim::ScenarioFile& file) {
    const auto& s = file.scenario;
    return {s.faults.size(),       s.trainer.max_steps,
            s.job.ranks,           sim::run_scenario_file(file).stats.evaluations,
            s.score.script.size(), settings_away_from_default(s)};
}

// No larger anywhere, smaller somewhere.
void expect_smaller(const MeasuredSize& after, const MeasuredSize& before) {
    EXPECT_LE(after.faults, before.faults);
    EXPECT_LE(after.steps, before.steps);
    EXPECT_LE(after.ranks, before.ranks);
    EXPECT_LE(after.evaluations, before.evaluations);
    EXPECT_LE(after.script, before.script);
    EXPECT_LE(after.settings, before.settings);
    EXPECT_TRUE(after.faults < before.faults || after.steps < before.steps || after.ranks < before.ranks ||
                after.evaluations < before.evaluations || after.script < before.script ||
                after.settings < before.settings);
}

std::vector<std::string> reduction_lines(const std::string& out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("  - ", 0) == 0) {
            lines.push_back(line);
        }
    }
    return lines;
}

class ShrinkCommand : public CkptsimProcessTest {
  protected:
    ShrinkCommand() : CkptsimProcessTest("ckptsim-shrink") {}

    // Shrinks `mutant`'s counterexample and checks the result against the input.
    void expect_shrinks(const std::string& mutant) {
        const auto input = mutant_counterexample(mutant);
        ASSERT_FALSE(input.empty());
        const auto original = sim::ScenarioFile::load(input);
        const auto property = sim::run_scenario_file(original).violations.at(0).property;
        const auto out = path(mutant + "-min.json");
        const auto shrink = ckptsim({"shrink", input, "--out", out});
        ASSERT_EQ(shrink.exit_code, 0) << shrink.out << shrink.err;
        EXPECT_THAT(shrink.out, HasSubstr("keeping " + std::string(sim::id_of(property))));
        const auto minimal = sim::ScenarioFile::load(out);
        ASSERT_TRUE(minimal.mutant.has_value());
        EXPECT_EQ(*minimal.mutant, *original.mutant);
        EXPECT_FALSE(sim::run_scenario_file(minimal).held(property)) << read_all(out);
        expect_smaller(measure(minimal), measure(original));
        // The product's own replay reproduces the failure from the file alone.
        const auto replay = ckptsim({"replay", out, "--json"});
        EXPECT_EQ(replay.exit_code, 1);
        const auto verdicts = json::parse(replay.out.substr(replay.out.find('{'))).at("properties");
        EXPECT_EQ(verdicts.at(std::string(sim::id_of(property))), "violated") << replay.out;
    }
};

TEST_F(ShrinkCommand, TieReplacesBestCounterexampleShrinksAndStillFails) {
    expect_shrinks("tie_replaces_best");
}

TEST_F(ShrinkCommand, StopNotRestoredCounterexampleShrinksAndStillFails) {
    expect_shrinks("stop_not_restored");
}

TEST_F(ShrinkCommand, PrintsOneLinePerAcceptedReductionEndingAtTheWrittenSize) {
    const auto input = mutant_counterexample("tie_replaces_best");
    const auto out = path("min.json");
    const auto shrink = ckptsim({"shrink", input, "--out", out});
    ASSERT_EQ(shrink.exit_code, 0) << shrink.err;
    const auto lines = reduction_lines(shrink.out);
    ASSERT_FALSE(lines.empty()) << shrink.out;
    for (const auto& line : lines) {
        EXPECT_THAT(line,
                    ::testing::MatchesRegex(
                        ".+  => faults [0-9]+, steps [0-9]+, ranks [0-9]+, scores [0-9]+, script [0-9]+, "
                        "settings [0-9]+"));
    }
    EXPECT_THAT(shrink.out, HasSubstr(std::to_string(lines.size()) + " reductions"));
    // The last line's size is the written file's.
    const auto size = measure(sim::ScenarioFile::load(out));
    EXPECT_THAT(lines.back(),
                HasSubstr("=> faults " + std::to_string(size.faults) + ", steps " +
                          std::to_string(size.steps) + ", ranks " + std::to_string(size.ranks) + ", scores " +
                          std::to_string(size.evaluations) + ", script " + std::to_string(size.script)));
    EXPECT_THAT(shrink.out, HasSubstr("replay: ckptsim replay " + out));
}

TEST_F(ShrinkCommand, SameInputGivesTheSameOutput) {
    const auto input = mutant_counterexample("stop_not_restored");
    const auto first = ckptsim({"shrink", input, "--out", path("a.json")});
    const auto second = ckptsim({"shrink", input, "--out", path("b.json")});
    ASSERT_EQ(first.exit_code, 0);
    ASSERT_EQ(second.exit_code, 0);
    EXPECT_EQ(read_all(path("a.json")), read_all(path("b.json")));
    EXPECT_EQ(reduction_lines(first.out), reduction_lines(second.out));
}

TEST_F(ShrinkCommand, DefaultOutputSitsBesideTheInputWhichStaysUntouched) {
    const auto input = mutant_counterexample("tie_replaces_best");
    const auto before = read_all(input);
    const auto shrink = ckptsim({"shrink", input});
    ASSERT_EQ(shrink.exit_code, 0) << shrink.err;
    const auto expected = input.substr(0, input.size() - 5) + ".shrunk.json";
    EXPECT_TRUE(std::filesystem::exists(expected));
    EXPECT_THAT(shrink.out, HasSubstr("wrote " + expected));
    EXPECT_EQ(read_all(input), before);
    EXPECT_FALSE(std::filesystem::exists(expected + ".tmp"));
}

TEST_F(ShrinkCommand, AScenarioThatDoesNotFailExitsOneAndWritesNothing) {
    // Seed 1 on the real code holds every property (the swarm's 0-violation run covers it).
    sim::ScenarioFile holding;
    holding.scenario = sim::draw_scenario(1);
    holding.save(path("holds.json"));
    const auto shrink = ckptsim({"shrink", path("holds.json"), "--out", path("out.json")});
    EXPECT_EQ(shrink.exit_code, 1);
    EXPECT_THAT(shrink.err, HasSubstr("does not violate any property on the real code: nothing to shrink"));
    EXPECT_FALSE(std::filesystem::exists(path("out.json")));

    // A counterexample asked to keep a property it does not violate.
    const auto input = mutant_counterexample("tie_replaces_best");
    ASSERT_TRUE(sim::run_scenario_file(sim::ScenarioFile::load(input)).held(sim::Property::P14));
    const auto other = ckptsim({"shrink", input, "--property", "P14", "--out", path("out.json")});
    EXPECT_EQ(other.exit_code, 1);
    EXPECT_THAT(other.err, HasSubstr("does not violate P14 (refusal) under mutant tie_replaces_best"));
}

TEST_F(ShrinkCommand, BadInputExitsTwoNamingIt) {
    const auto missing = ckptsim({"shrink", path("missing.json")});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_THAT(missing.err, HasSubstr(path("missing.json")));

    std::ofstream(path("broken.json")) << "{\"scenario\": {\"seed\": 1, \"ranks\": 99}}";
    const auto broken = ckptsim({"shrink", path("broken.json")});
    EXPECT_EQ(broken.exit_code, 2);
    EXPECT_THAT(broken.err, HasSubstr(path("broken.json")));
    EXPECT_THAT(broken.err, HasSubstr("ranks"));

    const auto input = mutant_counterexample("tie_replaces_best");
    const auto unknown = ckptsim({"shrink", input, "--property", "P99"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_THAT(unknown.err, HasSubstr("--property: 'P99'"));

    const auto before = read_all(input);
    const auto onto_itself = ckptsim({"shrink", input, "--out", input});
    EXPECT_EQ(onto_itself.exit_code, 2);
    EXPECT_THAT(onto_itself.err, HasSubstr("is the input file"));
    EXPECT_EQ(read_all(input), before);
}

TEST_F(ShrinkCommand, MutantsSavesTheShrunkCounterexampleNotTheSwarmKill) {
    const auto run = ckptsim({"mutants", "--only", "stop_not_restored", "--budget", "100", "--jobs", "1",
                              "--out", path("kills"), "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto row = json::parse(run.out).at("mutants").at(0);
    ASSERT_TRUE(row.at("killed").get<bool>());
    const auto property = *sim::parse_property(row.at("property").get<std::string>());
    sim::ScenarioFile raw;
    raw.scenario = sim::draw_scenario(row.at("seed").get<std::uint64_t>());
    raw.mutant = mutants::find("stop_not_restored");
    const auto saved = sim::ScenarioFile::load(path("kills") + "/stop_not_restored.json");
    EXPECT_FALSE(sim::run_scenario_file(saved).held(property));
    expect_smaller(measure(saved), measure(raw));
}

}  // namespace
}  // namespace ckpt::cli
