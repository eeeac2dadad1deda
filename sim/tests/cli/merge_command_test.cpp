// `ckptsim merge` end to end: three `explore --shard K/3` runs merged equal one unsharded run in
// every field of explore --json (the in-order trace hash excepted, which shards cannot rebuild;
// the seed-keyed scenario digest stands in for it), and every refusal exits 2 naming the file.
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class MergeCommand : public ckpt::testing::CkptsimProcessTest {
  protected:
    MergeCommand() : CkptsimProcessTest("ckptsim-merge-test") {}

    // explore --json over `seeds` seeds from 0, as shard `shard` ("" for unsharded), saved to a file.
    std::string explore(const std::string& name, const std::string& seeds, const std::string& shard,
                        std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"explore", "--first-seed", "0",     "--seeds",       seeds, "--jobs",
                                      "2",       "--json",       "--out", path("failures")};
        if (!shard.empty()) {
            args.insert(args.end(), {"--shard", shard});
        }
        args.insert(args.end(), extra.begin(), extra.end());
        const auto run = ckptsim(args);
        EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
        return write(name, run.out);
    }
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(path(name), std::ios::trunc) << text;
        return path(name);
    }
    // A copy of `file` with one top-level field replaced.
    std::string edited(const std::string& file, const std::string& name, const std::string& key,
                       const json& value) {
        auto document = json::parse(ckpt::testing::read_all(file));
        document[key] = value;
        return write(name, document.dump());
    }
    void expect_refused(const std::vector<std::string>& files, const std::string& named,
                        const std::string& reason) {
        std::vector<std::string> args{"merge"};
        args.insert(args.end(), files.begin(), files.end());
        const auto run = ckptsim(args);
        EXPECT_EQ(run.exit_code, 2) << run.out;
        EXPECT_THAT(run.err, HasSubstr(named));
        EXPECT_THAT(run.err, HasSubstr(reason));
    }
};

void expect_equal_to_unsharded(const json& merged, const json& unsharded) {
    for (const auto& [key, value] : unsharded.items()) {
        if (key == "trace_hash") {
            EXPECT_TRUE(merged.at(key).is_null()) << "the in-order hash cannot be combined";
            continue;
        }
        ASSERT_TRUE(merged.contains(key)) << key;
        EXPECT_EQ(merged.at(key), value) << key;
    }
    EXPECT_EQ(merged.at("merged").at("shards"), 3);
    EXPECT_EQ(merged.at("merged").at("missing_shards"), json::array());
}

TEST_F(MergeCommand, ThreeShardsOfSeeds0To2999EqualTheUnshardedRun) {
    const auto unsharded = json::parse(ckpt::testing::read_all(explore("all.json", "3000", "")));
    std::vector<std::string> args{"merge", "--json"};
    for (const char* shard : {"2/3", "1/3", "3/3"}) {  // in any order
        args.push_back(explore(std::string("shard-") + shard[0] + ".json", "3000", shard));
    }
    const auto merged = ckptsim(args);
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(unsharded.at("scenarios"), 3000);
    EXPECT_EQ(unsharded.at("last_seed"), 2999);
    expect_equal_to_unsharded(json::parse(merged.out), unsharded);

    args.erase(args.begin() + 1);  // the words
    const auto words = ckptsim(args);
    EXPECT_EQ(words.exit_code, 0) << words.err;
    EXPECT_THAT(words.out, HasSubstr("merged 3 of 3 shards"));
    EXPECT_THAT(words.out, HasSubstr("seeds 0..2999, 3000 scenarios"));
    EXPECT_THAT(words.out, HasSubstr("rare paths"));
    EXPECT_THAT(words.out,
                HasSubstr("scenario digest: " + unsharded.at("scenario_digest").get<std::string>()));
}

TEST_F(MergeCommand, EveryViolationOfEveryShardIsListedInSeedOrder) {
    const std::vector<std::string> mutant{"--mutant", "tie_replaces_best"};
    const auto unsharded = json::parse(ckpt::testing::read_all(explore("all.json", "300", "", mutant)));
    ASSERT_FALSE(unsharded.at("violations").empty())
        << "the mutant must be caught for this test to mean much";
    const auto merged =
        ckptsim({"merge", "--json", explore("a.json", "300", "1/3", mutant),
                 explore("b.json", "300", "2/3", mutant), explore("c.json", "300", "3/3", mutant)});
    EXPECT_EQ(merged.exit_code, 1) << merged.err;
    expect_equal_to_unsharded(json::parse(merged.out), unsharded);
}

TEST_F(MergeCommand, RefusesShardsOfAnotherBuildOrRun) {
    const auto one = explore("one.json", "30", "1/2");
    const auto two = explore("two.json", "30", "2/2");
    expect_refused({one, edited(two, "build.json", "build_id", "0.1.0+other.c0")}, "build.json", "build_id");
    expect_refused({one, edited(two, "version.json", "ckptsim_version", "9.9.9")}, "version.json", "9.9.9");
    expect_refused({one, explore("mutant.json", "30", "2/2", {"--mutant", "tie_replaces_best"})},
                   "mutant.json", "\"run\"");
    expect_refused({one, explore("range.json", "31", "2/2")}, "range.json", "\"run\"");
}

TEST_F(MergeCommand, RefusesAnotherShardCountAndOverlappingShards) {
    const auto one = explore("one.json", "30", "1/2");
    const auto two = explore("two.json", "30", "2/2");
    expect_refused({one, explore("of3.json", "30", "2/3")}, "of3.json", "one of 2 shards");
    expect_refused({one, two, write("copy.json", ckpt::testing::read_all(one))}, "copy.json", "also");
    // A file whose seeds are not the ones its shard covers overlaps another shard's.
    expect_refused({one, edited(two, "moved.json", "first_seed", 2)}, "moved.json", "first_seed");
    expect_refused({one, edited(two, "short.json", "scenarios", 14)}, "short.json", "14 scenarios");
}

TEST_F(MergeCommand, MissingOrInterruptedShardsAreRefusedUnlessPartial) {
    const auto one = explore("one.json", "30", "1/3");
    const auto three = explore("three.json", "30", "3/3");
    expect_refused({one, three}, "merge", "missing shard 2/3");
    const auto partial = ckptsim({"merge", "--json", "--partial", one, three});
    EXPECT_EQ(partial.exit_code, 0) << partial.err;
    EXPECT_THAT(partial.err, HasSubstr("warning"));
    const auto merged = json::parse(partial.out);
    EXPECT_EQ(merged.at("merged").at("missing_shards"), json::array({2}));
    EXPECT_EQ(merged.at("scenarios"), 20);

    const auto two = edited(explore("two.json", "30", "2/3"), "stopped.json", "interrupted", true);
    expect_refused({one, two, three}, "stopped.json", "interrupted");
    EXPECT_EQ(ckptsim({"merge", "--partial", one, two, three}).exit_code, 0);
}

TEST_F(MergeCommand, RefusesMalformedFilesNamingThem) {
    const auto one = explore("one.json", "30", "1/1");
    const auto text = ckpt::testing::read_all(one);
    expect_refused({write("cut.json", text.substr(0, text.size() / 2))}, "cut.json", "not valid JSON");
    expect_refused({write("twice.json", "{\"scenarios\": 1, \"scenarios\": 2}")}, "twice.json",
                   "duplicate key");
    expect_refused({write("list.json", "[]")}, "list.json", "not an object");
    auto document = json::parse(text);
    document.erase("coverage");
    expect_refused({write("partial.json", document.dump())}, "partial.json", "\"coverage\"");
    expect_refused({edited(one, "negative.json", "steps", -1)}, "negative.json", "\"steps\"");
    expect_refused({write("bytes.json", "{\"a\": \"\xff\"}")}, "bytes.json", "UTF-8");
    EXPECT_EQ(ckptsim({"merge"}).exit_code, 2);
    EXPECT_EQ(ckptsim({"merge", path("absent.json")}).exit_code, 2);
}

}  // namespace
}  // namespace ckpt::cli
