// `ckptsim run / replay / explore / mutants` end to end: exit codes (0 all held, 1 violation,
// 2 bad input naming the field), the --json shapes scripts rely on, and replay files that
// reproduce what they were saved from.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"
#include "sim/tests/support/text_lines.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::Completed;
using ckpt::testing::read_all;
using ckpt::testing::reference_fnv1a64;
using ckpt::testing::split_lines;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

bool is_hash(const json& value) {
    return value.is_string() && std::regex_match(value.get<std::string>(), std::regex("[0-9a-f]{16}"));
}

// FNV-1a 64, written from the reference rather than taken from the library.
// The keys of a JSON object's own members, in order and with repeats, which json::parse hides
// by keeping only the last of two equal keys.
std::vector<std::string> top_level_keys(const std::string& text) {
    std::vector<std::string> keys;
    [[maybe_unused]] const auto document =
        json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
            if (event == json::parse_event_t::key && depth == 1) {
                keys.push_back(parsed.get<std::string>());
            }
            return true;
        });
    return keys;
}

class CliCommands : public CkptsimProcessTest {
  protected:
    CliCommands() : CkptsimProcessTest("ckptsim-cli") {}

    std::string write_file(const std::string& name, const std::string& text) const {
        const auto full = path(name);
        std::ofstream(full, std::ios::binary | std::ios::trunc) << text;
        return full;
    }
};

const std::vector<std::string> kPropertyIds{"P1", "P2", "P3",  "P4",  "P5",  "P6",  "P7",
                                            "P8", "P9", "P10", "P11", "P12", "P13", "P14"};

TEST_F(CliCommands, RunPrintsAVerdictForEveryProperty) {
    const auto run = ckptsim({"run", "--seed", "1", "--out", path("failures")});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    for (const auto& id : kPropertyIds) {
        // "  P1  retain      held": the id, its name, its verdict, on a line of its own.
        EXPECT_TRUE(std::regex_search(run.out, std::regex("(^|\n) *" + id + " +[a-z]+ +held\n")))
            << id << "\n"
            << run.out;
    }
    EXPECT_THAT(run.out, ::testing::Not(HasSubstr("replay:")));
}

TEST_F(CliCommands, RunJsonHasSeedHashViolationsAndProperties) {
    const auto run = ckptsim({"run", "--seed", "1", "--json", "--out", path("failures")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const auto report = json::parse(run.out);
    EXPECT_EQ(report.at("seed"), 1);
    EXPECT_TRUE(is_hash(report.at("trace_hash"))) << report.at("trace_hash");
    EXPECT_EQ(report.at("violations"), json::array());
    const auto& properties = report.at("properties");
    ASSERT_TRUE(properties.is_object());
    EXPECT_EQ(properties.size(), kPropertyIds.size());
    for (const auto& id : kPropertyIds) {
        EXPECT_EQ(properties.value(id, ""), "held") << id;
    }
}

TEST_F(CliCommands, RunWithoutASeedIsBadInput) {
    const auto run = ckptsim({"run"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.out + run.err, HasSubstr("--seed"));
}

TEST_F(CliCommands, AMutantIsCaughtAndItsReplayFileReproducesTheRun) {
    const auto out = path("failures");
    std::optional<Completed> caught;
    std::string seed;
    for (int s = 1; s <= 50 && !caught; ++s) {
        seed = std::to_string(s);
        auto run = ckptsim({"run", "--seed", seed, "--mutant", "tie_replaces_best", "--out", out});
        ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
        if (run.exit_code == 1) {
            caught = std::move(run);
        }
    }
    ASSERT_TRUE(caught) << "no seed in 1..50 caught tie_replaces_best";
    std::string replay_file;
    std::string trace_hash;
    for (const auto& line : split_lines(caught->out)) {
        const std::string replay_prefix = "replay: ckptsim replay ";
        if (line.rfind(replay_prefix, 0) == 0) {
            replay_file = line.substr(replay_prefix.size());
        }
        const std::string hash_prefix = "trace hash: ";
        if (line.rfind(hash_prefix, 0) == 0) {
            trace_hash = line.substr(hash_prefix.size());
        }
    }
    ASSERT_FALSE(replay_file.empty()) << caught->out;
    EXPECT_TRUE(std::filesystem::exists(dir() / replay_file)) << replay_file;
    EXPECT_THAT(caught->out, HasSubstr("VIOLATED"));

    // The replay file carries the mutant: replaying it alone violates again, identically.
    const auto replay = ckptsim({"replay", replay_file, "--json", "--out", path("replayed")});
    EXPECT_EQ(replay.exit_code, 1) << replay.err;
    const auto report = json::parse(replay.out);
    EXPECT_EQ(report.at("trace_hash"), trace_hash);
    EXPECT_EQ(report.at("seed"), std::stoull(seed));
    EXPECT_EQ(report.at("mutant"), "tie_replaces_best");
    EXPECT_FALSE(report.at("violations").empty());
    EXPECT_EQ(report.at("properties").at("P11"), "violated");
    // A replay points back at the file it was given.
    EXPECT_EQ(report.at("replay"), "ckptsim replay " + replay_file);
}

TEST_F(CliCommands, ReplayOfAMissingFileNamesIt) {
    const auto missing = path("missing.json");
    const auto run = ckptsim({"replay", missing});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr(missing));
}

TEST_F(CliCommands, ReplayOfABadScenarioNamesTheField) {
    const auto ranks = write_file("ranks.json", R"({"seed": 1, "ranks": 9})");
    const auto run = ckptsim({"replay", ranks});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("ranks"));

    const auto fault =
        write_file("fault.json", R"({"seed": 1, "faults": [{"action": "crash", "pointt": "x"}]})");
    const auto unknown = ckptsim({"replay", fault});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_THAT(unknown.err, HasSubstr("faults[0].pointt"));

    const auto text = write_file("text.json", "{\"seed\": 1,");
    const auto broken = ckptsim({"replay", text});
    EXPECT_EQ(broken.exit_code, 2);
    EXPECT_THAT(broken.err, HasSubstr(text));
}

TEST_F(CliCommands, ExploreJsonSummarisesTheSwarm) {
    const auto run = ckptsim({"explore", "--seeds", "50", "--json", "--out", path("failures")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const auto summary = json::parse(run.out);
    EXPECT_EQ(summary.at("scenarios"), 50);
    EXPECT_EQ(summary.at("violations"), json::array());
    EXPECT_TRUE(is_hash(summary.at("trace_hash"))) << summary.at("trace_hash");
    const auto& coverage = summary.at("coverage");
    ASSERT_TRUE(coverage.is_object());
    EXPECT_FALSE(coverage.empty());
    for (const auto& [name, count] : coverage.items()) {
        EXPECT_TRUE(count.is_number_unsigned()) << name;
    }
    // Every named crash point has a row, hit or not.
    for (const char* point : {"step_end", "after_evaluation", "inside_sidecar_write", "after_on_save"}) {
        EXPECT_TRUE(coverage.contains(point)) << point;
    }
    // Not a TTY: no progress bar on stderr.
    EXPECT_EQ(run.err, "");
}

TEST_F(CliCommands, ExploreRejectsAShardOutsideItsRange) {
    for (const std::string shard : {"3/2", "0/2", "1/0", "a/b", "1/2/3"}) {
        const auto run = ckptsim({"explore", "--seeds", "4", "--shard", shard, "--out", path("failures")});
        EXPECT_EQ(run.exit_code, 2) << shard;
        EXPECT_THAT(run.err, HasSubstr("--shard")) << shard;
    }
}

// `--jobs 0` is accepted, so the help must say what it means rather than leave it to a guess.
TEST_F(CliCommands, HelpSaysWhatJobsZeroMeans) {
    for (const std::string command : {"explore", "mutants"}) {
        const auto help = ckptsim({command, "--help"});
        EXPECT_EQ(help.exit_code, 0) << command;
        EXPECT_THAT(help.out, HasSubstr("0 (the default) means one per core")) << command;
    }
}

TEST_F(CliCommands, MutantsJsonIsTheKillTable) {
    const auto out = path("mutants");
    const auto run =
        ckptsim({"mutants", "--only", "tie_replaces_best", "--json", "--budget", "200", "--out", out});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const auto table = json::parse(run.out);
    ASSERT_EQ(table.size(), 1U) << table;
    ASSERT_EQ(table.at("mutants").size(), 1U) << table;
    const auto& row = table.at("mutants").at(0);
    std::set<std::string> keys;
    for (const auto& [key, value] : row.items()) {
        keys.insert(key);
    }
    EXPECT_EQ(keys, (std::set<std::string>{"mutant", "killed", "property", "seed", "scenarios", "replay",
                                           "killing_scenarios", "kill_rate", "weak", "shrunk"}));
    // The saved counterexample is the shrunk one: its size before and after, and the runs spent.
    EXPECT_TRUE(row.at("shrunk").at("after").is_string()) << row;
    EXPECT_TRUE(row.at("shrunk").at("runs").is_number_integer()) << row;
    // The whole budget ran: the rate is the share of the 200 scenarios that killed it.
    EXPECT_EQ(row.at("kill_rate").get<double>(), row.at("killing_scenarios").get<double>() / 200.0);
    EXPECT_GT(row.at("kill_rate").get<double>(), 0.0);
    EXPECT_EQ(row.at("mutant"), "tie_replaces_best");
    EXPECT_EQ(row.at("killed"), true);
    EXPECT_TRUE(std::regex_match(row.at("property").get<std::string>(), std::regex("P[0-9]+")));
    EXPECT_TRUE(row.at("seed").is_number_unsigned());
    const auto scenarios = row.at("scenarios").get<std::uint64_t>();
    EXPECT_GE(scenarios, 1U);
    EXPECT_LE(scenarios, 200U);
    const auto replay = row.at("replay").get<std::string>();
    ASSERT_THAT(replay, StartsWith("ckptsim replay "));
    EXPECT_TRUE(std::filesystem::exists(replay.substr(std::string("ckptsim replay ").size()))) << replay;
}

TEST_F(CliCommands, MutantsRejectsAnUnknownName) {
    const auto run = ckptsim({"mutants", "--only", "nosuch", "--out", path("mutants")});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("nosuch"));
}

TEST_F(CliCommands, ReplayTraceWritesOneEventPerLine) {
    // A job crash and a resume, so the trace holds more than a plain run's kinds of events.
    const auto scenario = write_file("crash.json", R"({"seed": 3, "ranks": 2, "max_steps": 100,
        "steps_per_epoch": 100, "save_steps": 10, "score": {"kind": "scripted", "script": [0.5]},
        "faults": [{"action": "crash", "point": "after_evaluation", "occurrence": 2}]})");
    const auto trace = path("out.jsonl");
    const auto run = ckptsim({"replay", scenario, "--trace", trace, "--json", "--out", path("failures")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const auto bytes = read_all(trace);
    const auto lines = split_lines(bytes);
    ASSERT_GT(lines.size(), 3U);
    std::set<std::string> kinds;
    for (const auto& line : lines) {
        SCOPED_TRACE(line);
        const auto event = json::parse(line);
        ASSERT_TRUE(event.is_object());
        EXPECT_TRUE(event.at("t").is_number_integer());
        EXPECT_TRUE(event.at("inc").is_number_integer());
        EXPECT_TRUE(event.at("rank").is_number_integer());
        ASSERT_TRUE(event.at("kind").is_string());
        kinds.insert(event.at("kind").get<std::string>());
        // A detail that reuses an event field would hide it from every JSON reader.
        const auto keys = top_level_keys(line);
        EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
    }
    EXPECT_TRUE(kinds.count("crash")) << "the injected crash is not in the trace as a crash event";
    EXPECT_TRUE(kinds.count("resume"));
    // The file is exactly the hashed bytes: FNV-1a of it is the printed trace hash.
    const auto report = json::parse(run.out);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(reference_fnv1a64(bytes)));
    EXPECT_EQ(report.at("trace_hash"), hex);
}

}  // namespace
}  // namespace ckpt::cli
