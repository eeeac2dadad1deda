// ckptsim with a Python callback (docs/external-callback.md): the project's example callback
// holds every property on a small swarm and replays to the same trace hash in new processes;
// callbacks that leave the simulated surface end as harness errors (exit 2) that name what they
// did. Skipped, with a message, when this build found no python3.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::testing {
namespace {

const std::string kPython = CKPT_PYTHON3;
const std::string kSource = CKPT_SOURCE_DIR;

std::string example_command() {
    return kPython + " -m ckptsim_shim serve --path " + kSource + "/examples/trigger_callback --binding " +
           kSource +
           "/examples/trigger_callback/ckptsim_binding.py:OriginalApiBinding "
           "checkpoint_eval_policy:CheckpointEvaluationTriggerCallback";
}

std::string hostile_command(const std::string& name) {
    return kPython + " -m ckptsim_shim serve --path " + kSource +
           "/sim/tests/external/fixtures hostile_callbacks:" + name;
}

std::string line_with(const std::string& text, std::string_view prefix) {
    const auto at = text.find(prefix);
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
}

class ExternalCallback : public CkptsimProcessTest {
  protected:
    ExternalCallback() : CkptsimProcessTest("ckptsim-external") {}
    void SetUp() override {
        if (kPython.empty()) {
            GTEST_SKIP() << "python3 was not found when this build was configured: the external-callback "
                            "tests need it (.ci/bootstrap installs it)";
        }
    }
};

TEST_F(ExternalCallback, TheExampleCallbackHoldsEveryPropertyOnASwarm) {
    const auto explored =
        ckptsim({"explore", "--seeds", "6", "--jobs", "2", "--callback-command", example_command()});
    EXPECT_EQ(explored.exit_code, 0) << explored.out << explored.err;
    EXPECT_NE(explored.out.find("violations: 0 scenarios"), std::string::npos) << explored.out;
    EXPECT_NE(explored.out.find("finished"), std::string::npos) << explored.out;
}

TEST_F(ExternalCallback, ARunGivesTheSameTraceHashInFreshProcesses) {
    // `run` itself runs twice (P8); a second command starts every process again.
    const auto first = ckptsim({"run", "--seed", "4", "--callback-command", example_command()});
    const auto second = ckptsim({"run", "--seed", "4", "--callback-command", example_command()});
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    EXPECT_NE(first.out.find("callback: external, CheckpointEvaluationTriggerCallback"), std::string::npos)
        << first.out;
    EXPECT_FALSE(line_with(first.out, "trace hash:").empty());
    EXPECT_EQ(line_with(first.out, "trace hash:"), line_with(second.out, "trace hash:"));
}

// Differential: without faults the example makes exactly the port's decisions, disk operations
// and collectives, so the trace (every event, every verdict) is the port's, byte for byte.
TEST_F(ExternalCallback, WithoutFaultsTheExampleLeavesThePortsTrace) {
    for (const auto* seed : {"1", "2", "3", "4"}) {
        const auto port = ckptsim({"run", "--seed", seed, "--no-faults"});
        const auto external =
            ckptsim({"run", "--seed", seed, "--no-faults", "--callback-command", example_command()});
        ASSERT_EQ(external.exit_code, 0) << external.out << external.err;
        EXPECT_FALSE(line_with(port.out, "trace hash:").empty());
        EXPECT_EQ(line_with(external.out, "trace hash:"), line_with(port.out, "trace hash:"))
            << "seed " << seed;
    }
}

TEST_F(ExternalCallback, ABuggyCopyIsCaughtAndItsSavedFileReplaysWithTheCallback) {
    // A copy of the example whose policy saves on a tie (a plateau replaces the best).
    const auto copy = dir() / "buggy";
    std::filesystem::copy(kSource + "/examples/trigger_callback", copy,
                          std::filesystem::copy_options::recursive);
    const auto core = copy / "ckpt_eval_core.py";
    auto text = read_all(core);
    const std::string exact = "if first or score > s.best_score:";
    ASSERT_EQ(text.find(exact), text.rfind(exact)) << "the mutation must apply exactly once";
    ASSERT_NE(text.find(exact), std::string::npos);
    text.replace(text.find(exact), exact.size(), "if first or score >= s.best_score:");
    std::ofstream(core, std::ios::trunc) << text;
    auto command = example_command();
    command.replace(command.find(kSource + "/examples/trigger_callback"),
                    (kSource + "/examples/trigger_callback").size(), copy.string());
    std::string saved;
    for (int seed = 1; seed <= 30 && saved.empty(); ++seed) {
        const auto run = ckptsim(
            {"run", "--seed", std::to_string(seed), "--callback-command", command, "--out", path("found")});
        ASSERT_NE(run.exit_code, 2) << run.out << run.err;
        if (run.exit_code == 1) {
            saved = path("found") + "/seed-" + std::to_string(seed) + ".json";
        }
    }
    ASSERT_FALSE(saved.empty()) << "no seed in 1..30 caught a policy that saves on a tie";
    EXPECT_NE(read_all(saved).find("\"callback\""), std::string::npos);
    EXPECT_EQ(ckptsim({"replay", saved}).exit_code, 1);
    EXPECT_EQ(ckptsim({"replay", saved, "--builtin-callback"}).exit_code, 0);
}

// A hostile callback, and a word its harness error must name.
struct Hostile {
    const char* name;
    const char* named;
};

class HostileCallback : public ExternalCallback, public ::testing::WithParamInterface<Hostile> {};

TEST_P(HostileCallback, EndsAsAHarnessErrorNamingWhatItDid) {
    const auto run = ckptsim({"run", "--seed", "1", "--no-faults", "--callback-timeout", "3",
                              "--callback-command", hostile_command(GetParam().name)});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.out.find("outcome: harness_error"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(GetParam().named), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("not judged"), std::string::npos) << run.out;
    EXPECT_FALSE(std::filesystem::exists("/ckptsim-vfs"));
    EXPECT_FALSE(std::filesystem::exists("/tmp/ckptsim-hostile-callback-escaped"));
}

INSTANTIATE_TEST_SUITE_P(Each, HostileCallback,
                         ::testing::Values(Hostile{"WritesTheRealDisk", "escaped"},
                                           Hostile{"WritesTheHost", "would change the host's file system"},
                                           Hostile{"StartsAThread", "hread"}, Hostile{"Forks", "fork"},
                                           Hostile{"ChangesPermissions", "chmod"},
                                           Hostile{"Hangs", "no answer within 3000 ms"},
                                           Hostile{"ExitsEarly", "closed the channel"}),
                         [](const auto& info) { return std::string(info.param.name); });

// Printing to stdout, even protocol-shaped lines, never reaches the protocol.
TEST_F(ExternalCallback, ACallbackThatPrintsHoldsAsTheExampleDoes) {
    auto command = example_command();
    command.replace(command.find("--binding"), 0, "--path " + kSource + "/sim/tests/external/fixtures ");
    command.replace(command.find("checkpoint_eval_policy:"), std::string("checkpoint_eval_policy").size(),
                    "printing_trigger");
    const auto printing = ckptsim({"run", "--seed", "2", "--callback-command", command});
    const auto quiet = ckptsim({"run", "--seed", "2", "--callback-command", example_command()});
    EXPECT_EQ(printing.exit_code, 0) << printing.out << printing.err;
    EXPECT_EQ(line_with(printing.out, "trace hash:"), line_with(quiet.out, "trace hash:"));
}

// The calls run ahead of the trainer (protocol 2) change nothing: the same trace with every call
// sent alone, for the example and for a callback whose saves follow the clock it reads and whose
// on_step_end makes a file request. A wrong plan of the trainer's steps would be a harness error.
TEST_F(ExternalCallback, CallsRunAheadLeaveTheTraceAsCallsSentAlone) {
    auto clock_reader = example_command();
    clock_reader.replace(clock_reader.find("--binding"), 0,
                         "--path " + kSource + "/sim/tests/external/fixtures ");
    clock_reader.replace(clock_reader.find("checkpoint_eval_policy:"),
                         std::string("checkpoint_eval_policy").size(), "clock_reading_trigger");
    for (const auto& command : {example_command(), clock_reader}) {
        const auto ahead = ckptsim({"explore", "--seeds", "5", "--jobs", "2", "--callback-command", command});
        const auto alone = ckptsim({"explore", "--seeds", "5", "--jobs", "2", "--callback-lookahead", "0",
                                    "--callback-command", command});
        ASSERT_NE(ahead.exit_code, 2) << ahead.out << ahead.err;  // 2: a harness error
        EXPECT_EQ(ahead.exit_code, alone.exit_code) << alone.out << alone.err;
        EXPECT_FALSE(line_with(ahead.out, "trace hash:").empty());
        EXPECT_EQ(line_with(ahead.out, "trace hash:"), line_with(alone.out, "trace hash:")) << command;
    }
}

// A setting changed before a resume with restore_callback_states_from_checkpoint: under the
// port's stateful-callback machinery the resume is refused (and relaunched with the fix); under a
// stock Trainer's (--callback-restore transformers) the callback is rebuilt from the saved
// arguments and trains on with the old patience, which P10 reports. The saved file keeps the choice.
TEST_F(ExternalCallback, UnderTransformersOwnRestoreAChangedSettingIsSilentlyIgnored) {
    const auto scenario = kSource + "/sim/tests/external/fixtures/changed-patience-on-resume.json";
    const auto refused = ckptsim({"replay", scenario, "--callback-command", example_command()});
    EXPECT_EQ(refused.exit_code, 0) << refused.out << refused.err;
    const auto silent = ckptsim({"replay", scenario, "--callback-command", example_command(),
                                 "--callback-restore", "transformers", "--out", path("silent")});
    EXPECT_EQ(silent.exit_code, 1) << silent.out << silent.err;
    EXPECT_NE(silent.out.find("a resume with a changed patience trained on instead of refusing"),
              std::string::npos)
        << silent.out;
    const auto saved = read_all(
        path("silent") + "/seed-" +
        std::to_string(nlohmann::json::parse(read_all(scenario)).at("scenario").at("seed").get<int>()) +
        ".json");
    EXPECT_NE(saved.find("\"restore\": \"transformers\""), std::string::npos) << saved;
    const auto bad = ckptsim({"run", "--seed", "1", "--callback-restore", "transformers"});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    const auto unknown = ckptsim(
        {"run", "--seed", "1", "--callback-command", example_command(), "--callback-restore", "lightning"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
    EXPECT_NE(unknown.err.find("--callback-restore"), std::string::npos) << unknown.err;
}

// examples/trigger_callback/mutants.json, through `ckptsim mutants --callback-mutants`: each
// hand-made bug, applied to a copy of the example, must give on some seed a verdict the
// unmodified example does not give on that seed, and its saved scenario must replay the bug.
TEST_F(ExternalCallback, EveryPythonMutantOfTheExampleIsKilledDifferentially) {
    const auto table = ckptsim({"mutants", "--callback-command", example_command(), "--callback-mutants",
                                kSource + "/examples/trigger_callback/mutants.json", "--budget", "20",
                                "--jobs", "2", "--out", path("mutants"), "--json"});
    ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
    const auto report = nlohmann::json::parse(table.out);
    std::ifstream in(kSource + "/examples/trigger_callback/mutants.json");
    EXPECT_EQ(report.at("mutants").size(), nlohmann::json::parse(in).at("mutants").size());
    EXPECT_EQ(report.at("original_violating_seeds"), 0) << table.out;
    for (const auto& row : report.at("mutants")) {
        EXPECT_TRUE(row.at("killed").get<bool>()) << row.dump();
        EXPECT_EQ(row.at("harness_errors"), 0) << row.dump();
    }
    const auto replay =
        ckptsim({"replay",
                 path("mutants") + "/" + report.at("mutants")[0].at("mutant").get<std::string>() + ".json"});
    EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
}

TEST_F(ExternalCallback, CallbackMutantsRefuseBadInputNamingIt) {
    const auto mutants_file = kSource + "/examples/trigger_callback/mutants.json";
    const auto alone = ckptsim({"mutants", "--callback-command", example_command()});
    EXPECT_EQ(alone.exit_code, 2);
    EXPECT_NE(alone.err.find("--callback-mutants"), std::string::npos) << alone.err;
    const auto no_command = ckptsim({"mutants", "--callback-mutants", mutants_file});
    EXPECT_EQ(no_command.exit_code, 2);
    EXPECT_NE(no_command.err.find("--callback-command"), std::string::npos) << no_command.err;
    const auto unknown = ckptsim({"mutants", "--callback-command", example_command(), "--callback-mutants",
                                  mutants_file, "--only", "nope"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("--only: 'nope'"), std::string::npos) << unknown.err;
    // A command that never names the mutants file's folder would run the unmodified callback.
    const auto elsewhere = ckptsim(
        {"mutants", "--callback-command", hostile_command("Hangs"), "--callback-mutants", mutants_file});
    EXPECT_EQ(elsewhere.exit_code, 2);
    EXPECT_NE(elsewhere.err.find("never names"), std::string::npos) << elsewhere.err;
}

}  // namespace
}  // namespace ckpt::testing
