// The regression corpus: every scenario file in properties/corpus/ is replayed on every run and
// must give the verdicts it lists. Swarm seeds that hold everything guard against false alarms
// (and cover each fault kind); each mutant's shrunk counterexample guards the property that
// caught it; scenarios that once violated a property guard the fix. See properties/README.md.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "properties/support/corpus_dir.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::properties {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpus_files() {
    std::vector<std::string> files;
    if (fs::is_directory(kCorpus)) {
        for (const auto& entry : fs::directory_iterator(kCorpus)) {
            if (entry.is_regular_file() && entry.path().extension() == ".json") {
                files.push_back(entry.path().filename().string());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = fs::path(info.param).stem().string();
    std::replace_if(
        name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) == 0; }, '_');
    return name;
}

std::string violations_of(const sim::ScenarioResult& result, sim::Property property) {
    std::string text;
    for (const auto& violation : result.violations) {
        if (violation.property == property) {
            text += "\n    " + violation.message;
        }
    }
    return text;
}

class Corpus : public ::testing::TestWithParam<std::string> {
  protected:
    void expect_listed_verdicts() const {
        const auto path = (kCorpus / GetParam()).string();
        const auto file = sim::ScenarioFile::load(path);
        ASSERT_FALSE(file.expected.empty()) << path << " lists no expected verdicts, so it checks nothing";
        const auto result = sim::run_scenario_file(file);
        for (const auto& [id, verdict] : file.expected.items()) {
            const auto property = *sim::parse_property(id);  // ScenarioFile::parse checked the ids
            bool held = result.held(property);
            if (property == sim::Property::P8) {
                held = sim::run_scenario_file(file).trace_hash == result.trace_hash;
            }
            EXPECT_EQ(held ? "held" : "violated", verdict.get<std::string>())
                << id << " (" << sim::info_of(property).statement << ")" << violations_of(result, property)
                << "\n  replay: ckptsim replay " << path;
        }
    }
};

TEST_P(Corpus, ReplaysWithItsExpectedVerdicts) {
    expect_listed_verdicts();
}

// Black-box judging: with every observer call deleted from the port's evaluation round, each
// file still gives its verdicts, so no property waits for the code under test to say when to
// judge or what it holds. A file whose fault plan waits for a moment only the hooks raise (the
// after_evaluation crash point inside the round, a crash aimed after the stop decision, a death
// part-way through a broadcast) cannot inject it then: that is the fault plan's reach, not a
// verdict, and BlackBox.EveryMutantIsKilledWithEveryObserverCallDeleted covers those mutants.
TEST_P(Corpus, ReplaysWithItsExpectedVerdictsWithEveryObserverCallDeleted) {
    const auto file = sim::ScenarioFile::load((kCorpus / GetParam()).string());
    for (const auto& fault : file.scenario.faults) {
        const bool crash_in_round = fault.action == sim::FaultAction::crash &&
                                    fault.aim == sim::FaultAim::none &&
                                    fault.point == sim::CrashPoint::after_evaluation;
        if (crash_in_round || fault.aim == sim::FaultAim::after_stop_decision ||
            fault.aim == sim::FaultAim::mid_broadcast) {
            GTEST_SKIP() << "its fault waits for a moment only the observer hooks raise";
        }
    }
    const mutants::ObserverCallsDeletedScope deleted;
    expect_listed_verdicts();
}

INSTANTIATE_TEST_SUITE_P(Files, Corpus, ::testing::ValuesIn(corpus_files()), test_name);

// Every mutant's counterexample is part of the corpus, so a catalogue entry added without one
// is noticed (CorpusRegeneration.DISABLED_MutantCounterexamples writes them).
TEST(CorpusDirectory, HoldsACounterexampleForEveryMutant) {
    for (const auto& info : mutants::catalogue()) {
        const auto path = kCorpus / ("mutant-" + std::string(info.name) + ".json");
        ASSERT_TRUE(fs::exists(path)) << "no corpus entry " << path;
        const auto file = sim::ScenarioFile::load(path.string());
        EXPECT_EQ(file.mutant, info.mutant) << path;
        EXPECT_TRUE(std::any_of(file.expected.begin(), file.expected.end(),
                                [](const auto& verdict) { return verdict == "violated"; }))
            << path << " expects no violation, so it would not notice the mutant being fixed away";
        // The property the counterexample was written for (its note: "... for P<n> <name>")
        // must be among the expected violations, or the entry would pass with that check gone.
        const auto document = nlohmann::json::parse(std::ifstream(path));
        const auto note = document.value("note", std::string());
        std::smatch written_for;
        ASSERT_TRUE(std::regex_search(note, written_for, std::regex(" for (P[0-9]+) ")))
            << path << ": " << note;
        EXPECT_EQ(document.at("expected").value(written_for[1].str(), std::string()), "violated")
            << path << " was written for " << written_for[1] << " but does not expect it violated";
    }
}

}  // namespace
}  // namespace ckpt::properties
