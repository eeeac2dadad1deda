// P8 from the outside: the same seed gives the same trace, byte for byte, in one process, in
// separate processes, and whatever the number of explore jobs or shards. The trace hash is
// recomputed here with a separate FNV-1a, so a change in how the library hashes cannot pass
// unnoticed.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// FNV-1a 64 as the reference defines it (offset basis 14695981039346656037, prime 2^40 + 0x1b3).
std::uint64_t reference_fnv1a64(std::string_view bytes, std::uint64_t hash = 14695981039346656037ULL) {
    for (const unsigned char byte : bytes) {
        hash = (hash ^ byte) * 1099511628211ULL;
    }
    return hash;
}

std::string hex16(std::uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Completed {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs the ckptsim binary in a fresh directory, which also receives anything it writes by default.
class DeterminismAcrossProcesses : public ::testing::Test {
  protected:
    void SetUp() override {
        auto pattern = (std::filesystem::temp_directory_path() / "ckptsim-determinism-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
        dir_ = pattern;
    }
    void TearDown() override {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }

    Completed ckptsim(std::vector<std::string> args) {
        args.insert(args.begin(), CKPTSIM_BINARY);
        std::vector<char*> argv;
        for (auto& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        const auto dir = dir_.string();
        const auto out_path = (dir_ / "stdout").string();
        const auto err_path = (dir_ / "stderr").string();
        const pid_t pid = fork();
        if (pid == 0) {
            const int in = open("/dev/null", O_RDONLY);
            const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (chdir(dir.c_str()) != 0 || in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 ||
                dup2(out, 1) < 0 || dup2(err, 2) < 0) {
                _exit(126);
            }
            execv(argv[0], argv.data());
            _exit(127);
        }
        Completed done;
        EXPECT_GT(pid, 0) << std::strerror(errno);
        int status = 0;
        EXPECT_EQ(waitpid(pid, &status, 0), pid);
        done.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        done.out = read_all(out_path);
        done.err = read_all(err_path);
        return done;
    }

    json ckptsim_json(const std::vector<std::string>& args) {
        const auto done = ckptsim(args);
        EXPECT_EQ(done.exit_code, 0) << done.err;
        return json::parse(done.out);
    }

    std::string out_dir() const { return (dir_ / "failures").string(); }

    std::filesystem::path dir_;
};

TEST(TraceDeterminism, ReferenceFnvMatchesThePublishedVectors) {
    // Guards the test's own hash: draft-eastlake-fnv, FNV-1a 64.
    EXPECT_EQ(reference_fnv1a64(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(reference_fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(reference_fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(TraceDeterminism, SameScenarioTwiceGivesTheSameTrace) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto scenario = draw_scenario(seed);
        const auto first = run_scenario(scenario, RunOptions{.keep_trace = true});
        const auto second = run_scenario(scenario, RunOptions{.keep_trace = true});
        ASSERT_FALSE(first.trace.empty()) << "seed " << seed;
        EXPECT_EQ(first.trace_hash, second.trace_hash) << "seed " << seed;
        EXPECT_EQ(first.trace, second.trace) << "seed " << seed;
    }
}

TEST(TraceDeterminism, TraceHashIsFnv1aOfTheLinesEachEndedByNewline) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto result = run_scenario(draw_scenario(seed), RunOptions{.keep_trace = true});
        std::uint64_t hash = 14695981039346656037ULL;
        for (const auto& line : result.trace) {
            ASSERT_EQ(line.find('\n'), std::string::npos) << "a trace line must not span lines";
            hash = reference_fnv1a64(line, hash);
            hash = reference_fnv1a64("\n", hash);
        }
        EXPECT_EQ(result.trace_hash_value, hash) << "seed " << seed;
        EXPECT_EQ(result.trace_hash, hex16(hash)) << "seed " << seed;
    }
}

TEST(TraceDeterminism, KeepingTheTraceDoesNotChangeTheHash) {
    // Explore drops the lines and replay --trace keeps them: both must describe the same run.
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto scenario = draw_scenario(seed);
        const auto kept = run_scenario(scenario, RunOptions{.keep_trace = true});
        const auto dropped = run_scenario(scenario, RunOptions{.keep_trace = false});
        EXPECT_TRUE(dropped.trace.empty());
        EXPECT_EQ(dropped.trace_hash, kept.trace_hash) << "seed " << seed;
    }
}

TEST(TraceDeterminism, DifferentSeedsGiveDifferentHashes) {
    // Otherwise the equalities above could hold for a hash that ignores the run.
    EXPECT_NE(run_scenario(draw_scenario(1)).trace_hash, run_scenario(draw_scenario(2)).trace_hash);
}

TEST_F(DeterminismAcrossProcesses, RunInSeparateProcessesPrintsTheSameHash) {
    for (const std::string seed : {"1", "17", "123456789"}) {
        const auto first = ckptsim_json({"run", "--seed", seed, "--json", "--out", out_dir()});
        const auto second = ckptsim_json({"run", "--seed", seed, "--json", "--out", out_dir()});
        EXPECT_EQ(first.at("trace_hash"), second.at("trace_hash")) << "seed " << seed;
        // And the same as this process computes for the drawn scenario.
        const auto here = run_scenario(draw_scenario(std::stoull(seed)));
        EXPECT_EQ(first.at("trace_hash"), here.trace_hash) << "seed " << seed;
    }
}

TEST_F(DeterminismAcrossProcesses, ExploreGivesTheSameResultForAnyNumberOfJobs) {
    const auto one = ckptsim_json({"explore", "--seeds", "200", "--jobs", "1", "--json", "--out", out_dir()});
    const auto two = ckptsim_json({"explore", "--seeds", "200", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(one.at("scenarios"), 200);
    EXPECT_EQ(two.at("scenarios"), one.at("scenarios"));
    EXPECT_EQ(two.at("trace_hash"), one.at("trace_hash"));
    EXPECT_EQ(two.at("coverage"), one.at("coverage"));
    EXPECT_EQ(two.at("violations"), one.at("violations"));
}

TEST_F(DeterminismAcrossProcesses, ExploreHashCombinesTheScenarioHashesInSeedOrder) {
    // Each scenario's 64-bit hash, as 8 little-endian bytes (trace_hash.hpp), fed to FNV-1a in
    // seed order, seeds 1..30 (explore's first seed is 1).
    std::uint64_t combined = 14695981039346656037ULL;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const auto value = run_scenario(draw_scenario(seed)).trace_hash_value;
        for (int i = 0; i < 8; ++i) {
            const char byte = static_cast<char>(static_cast<unsigned char>(value >> (8 * i)));
            combined = reference_fnv1a64(std::string_view(&byte, 1), combined);
        }
    }
    const auto explored =
        ckptsim_json({"explore", "--seeds", "30", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(explored.at("trace_hash"), hex16(combined));
}

TEST_F(DeterminismAcrossProcesses, ShardsPartitionTheSeeds) {
    const auto whole =
        ckptsim_json({"explore", "--seeds", "200", "--jobs", "2", "--json", "--out", out_dir()});
    const auto first = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "1/2", "--jobs", "2", "--json", "--out", out_dir()});
    const auto second = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "2/2", "--jobs", "2", "--json", "--out", out_dir()});
    EXPECT_EQ(whole.at("scenarios"), 200);
    EXPECT_GT(first.at("scenarios").get<std::uint64_t>(), 0U);
    EXPECT_GT(second.at("scenarios").get<std::uint64_t>(), 0U);
    EXPECT_EQ(first.at("scenarios").get<std::uint64_t>() + second.at("scenarios").get<std::uint64_t>(),
              whole.at("scenarios").get<std::uint64_t>());
    // Disjoint and covering: the shards' step totals add up to the whole run's.
    EXPECT_EQ(first.at("steps").get<std::uint64_t>() + second.at("steps").get<std::uint64_t>(),
              whole.at("steps").get<std::uint64_t>());
    // A shard is itself deterministic.
    const auto again = ckptsim_json(
        {"explore", "--seeds", "200", "--shard", "2/2", "--jobs", "1", "--json", "--out", out_dir()});
    EXPECT_EQ(again.at("trace_hash"), second.at("trace_hash"));
}

}  // namespace
}  // namespace ckpt::sim
