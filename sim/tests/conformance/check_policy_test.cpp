// `ckptsim vectors` and `ckptsim check-policy` end to end: the real policy agrees with every
// vector, a mutant is caught with a short divergence, and implementations that hang, die or
// print garbage are reported as such; the vectors are deterministic and cover what they claim.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::sim::conformance {
namespace {

using ckpt::testing::CkptsimProcessTest;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class CheckPolicy : public CkptsimProcessTest {
  protected:
    CheckPolicy() : CkptsimProcessTest("ckptsim-check-policy") {}

    // check-policy FLAGS -- COMMAND...
    ckpt::testing::Completed check(std::vector<std::string> flags, const std::vector<std::string>& command) {
        flags.insert(flags.begin(), "check-policy");
        flags.push_back("--");
        flags.insert(flags.end(), command.begin(), command.end());
        return ckptsim(std::move(flags));
    }

    std::vector<json> read_vectors(const std::string& file) {
        std::ifstream in(file);
        std::vector<json> vectors;
        for (std::string line; std::getline(in, line);) {
            vectors.push_back(json::parse(line));
        }
        return vectors;
    }
};

TEST_F(CheckPolicy, TheRealPolicyAgreesWithEveryGeneratedVectorAndRandomSequence) {
    const auto run = check({}, {CKPTSIM_BINARY, "policy"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("sequences agree"));
}

TEST_F(CheckPolicy, TheRealPolicyAgreesWithAWrittenVectorFile) {
    ASSERT_EQ(ckptsim({"vectors", "--count", "300", "--seed", "7", "--out", path("v.jsonl")}).exit_code, 0);
    const auto run = check({"--vectors", path("v.jsonl"), "--random", "0"}, {CKPTSIM_BINARY, "policy"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
}

TEST_F(CheckPolicy, TieReplacesBestIsCaughtOnTwoObservesThatTie) {
    const auto run = check({}, {CKPTSIM_BINARY, "policy", "--mutant", "tie_replaces_best"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("DIVERGENCE in vector"));
    EXPECT_THAT(run.out, HasSubstr("input (2 lines"));  // a tie needs two scores, and no more
    EXPECT_THAT(run.out, HasSubstr("decision.reason: expected \"tie_reset\", got \"improved\""));
    EXPECT_THAT(run.out, HasSubstr("reproduce: printf"));
}

TEST_F(CheckPolicy, AWrongExpectationInAVectorFileIsReportedAsADivergence) {
    ASSERT_EQ(ckptsim({"vectors", "--count", "0", "--out", path("v.jsonl")}).exit_code, 0);
    auto vectors = read_vectors(path("v.jsonl"));
    vectors[0]["expected"][1]["decision"]["reason"] = "lower";
    {
        std::ofstream out(path("edited.jsonl"));
        out << vectors[0].dump() << "\n";
    }
    const auto run = check({"--vectors", path("edited.jsonl"), "--random", "0"}, {CKPTSIM_BINARY, "policy"});
    ASSERT_EQ(run.exit_code, 1) << run.out;
    EXPECT_THAT(run.out, HasSubstr("decision.reason: expected \"lower\", got \"improved\""));
    EXPECT_THAT(run.out, HasSubstr("input (2 lines"));  // the prefix that ends at the difference
}

TEST_F(CheckPolicy, AHangingImplementationIsKilledAndReportedWithItsInput) {
    const auto run =
        check({"--count", "0", "--random", "0", "--timeout", "0.5"}, {"sh", "-c", "sleep 100", "sh"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("PROCESS FAILURE"));
    EXPECT_THAT(run.out, HasSubstr("did not finish within 500 ms (--timeout); it was killed and reaped"));
    EXPECT_THAT(run.out, HasSubstr("{\"observe\":{\"score\":0.5,\"step\":10}}    <-- here"));
}

TEST_F(CheckPolicy, AnImplementationThatDiesIsReportedWithItsExitStatus) {
    const auto run = check({"--count", "0", "--random", "0"}, {"false"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("no answer to input 1 of"));
    EXPECT_THAT(run.out, HasSubstr("exited with status 1"));
}

TEST_F(CheckPolicy, AnImplementationKilledByASignalIsReportedWithTheSignal) {
    const auto run = check({"--count", "0", "--random", "0"}, {"sh", "-c", "kill -SEGV $$", "sh"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("was killed by signal 11"));
}

TEST_F(CheckPolicy, GarbageOutputIsReportedAsNotJsonLines) {
    const auto run = check({"--count", "0", "--random", "0"}, {"sh", "-c", "exec yes", "sh"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("answer 1 is not a JSON object line"));
    EXPECT_THAT(run.out, HasSubstr("got:      y\n"));
}

TEST_F(CheckPolicy, AnImplementationThatStopsReadingIsNotASigpipeForCkptsim) {
    // The child closes its stdin unread: ckptsim's writes meet EPIPE, and it reports the silence.
    const auto run = check({"--count", "0", "--random", "0"}, {"sh", "-c", "exec 0<&-; sleep 0.1", "sh"});
    ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("exited with status 0"));
}

TEST_F(CheckPolicy, BadFlagsFilesAndCommandsExitTwo) {
    EXPECT_EQ(check({"--vectors", path("missing.jsonl")}, {"true"}).exit_code, 2);
    EXPECT_EQ(check({"--count", "-1"}, {"true"}).exit_code, 2);
    EXPECT_EQ(check({"--timeout", "0"}, {"true"}).exit_code, 2);
    EXPECT_EQ(ckptsim({"check-policy"}).exit_code, 2);  // no COMMAND
    {
        std::ofstream out(path("bad.jsonl"));
        out << "{\"id\": \"x\"}\n";
    }
    const auto bad_file = check({"--vectors", path("bad.jsonl")}, {"true"});
    EXPECT_EQ(bad_file.exit_code, 2);
    EXPECT_THAT(bad_file.err, HasSubstr("bad.jsonl:1: missing field 'config'"));
    const auto no_such = check({"--count", "0"}, {"/nonexistent/implementation"});
    EXPECT_EQ(no_such.exit_code, 2);
    EXPECT_THAT(no_such.err, HasSubstr("could not be started"));
}

TEST_F(CheckPolicy, PolicyTakesMutantNoneAndRefusesAnUnknownMutantNamingTheFlag) {
    const auto none =
        check({"--count", "0", "--random", "0"}, {CKPTSIM_BINARY, "policy", "--mutant", "none"});
    EXPECT_EQ(none.exit_code, 0) << none.out;
    const auto bogus = ckptsim({"policy", "--mutant", "bogus"});
    EXPECT_EQ(bogus.exit_code, 2);
    EXPECT_THAT(bogus.err, HasSubstr("--mutant: 'bogus' is not in the catalogue"));
}

TEST_F(CheckPolicy, VectorsAreTheSameBytesForASeedAndDifferForAnother) {
    const auto a = ckptsim({"vectors", "--count", "50", "--seed", "3"});
    const auto b = ckptsim({"vectors", "--count", "50", "--seed", "3"});
    const auto c = ckptsim({"vectors", "--count", "50", "--seed", "4"});
    ASSERT_EQ(a.exit_code, 0);
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out, c.out);
}

TEST_F(CheckPolicy, TheVectorsCoverEveryReasonTiePolicyErrorKindAndPath) {
    ASSERT_EQ(ckptsim({"vectors", "--count", "0", "--out", path("v.jsonl")}).exit_code, 0);
    std::set<std::string> reasons, ties, kinds, tags;
    for (const auto& vector : read_vectors(path("v.jsonl"))) {
        ties.insert(vector["config"]["tie_policy"].get<std::string>());
        for (const auto& answer : vector["expected"]) {
            if (answer.contains("decision")) {
                reasons.insert(answer["decision"]["reason"].get<std::string>());
            }
            if (answer.contains("error")) {
                kinds.insert(answer["error"]["kind"].get<std::string>());
            }
        }
        for (const auto& tag : vector["covers"]) {
            tags.insert(tag.get<std::string>());
        }
    }
    EXPECT_EQ(reasons, (std::set<std::string>{"initial", "improved", "patience_warmup_lower",
                                              "patience_warmup_tie", "lower", "patience_exhausted",
                                              "tie_reset", "tie_ignored", "tie_stop", "tie_counted"}));
    EXPECT_EQ(ties, (std::set<std::string>{"reset", "ignore", "stop", "count"}));
    EXPECT_EQ(kinds, (std::set<std::string>{"value_error", "runtime_error", "input_error"}));
    for (const char* tag : {"warmup_boundary", "baseline", "load:accepted", "load:refused", "stop"}) {
        EXPECT_TRUE(tags.contains(tag)) << tag;
    }
}

}  // namespace
}  // namespace ckpt::sim::conformance
