// Peak memory must not follow max_steps (issue 14): the same scenario, stopped by the policy at
// the same step, replayed with max_steps 2,000 and 2,000,000, peaks within a few MiB. Nor may it
// follow the number of evaluations beyond the decision tree's few bytes each: 10,000 evaluations
// peak within a few MiB of 2,500. Measured as the child's ru_maxrss (wait4), never a time. A
// structure sized by max_steps, or one kept per checkpoint or trace line, fails it.
#include <cstdint>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::testing {
namespace {

class LongRunMemory : public CkptsimProcessTest {
  protected:
    LongRunMemory() : CkptsimProcessTest("ckpt-long-run-memory") {}

    // A run the policy stops after 14 evaluations, at step 140, whatever max_steps is.
    std::string scenario_file(std::int64_t max_steps) {
        const auto file = path("stop-" + std::to_string(max_steps) + ".json");
        std::ofstream(file) << R"({"scenario": {"seed": 3, "ranks": 1, "max_steps": )" << max_steps
                            << R"(, "steps_per_epoch": 1000, "save_strategy": "steps", "save_steps": 10,)"
                            << R"( "policy": {"patience": 3}, "faults": []}})";
        return file;
    }

    // BM_SimLongRun's scenario: no faults, a save and an evaluation every 10 steps, a patience
    // no random walk exhausts, so the run evaluates `evaluations` times.
    std::string long_run_file(std::int64_t evaluations) {
        const auto file = path("evaluations-" + std::to_string(evaluations) + ".json");
        std::ofstream(file) << R"({"scenario": {"seed": 1, "ranks": 1, "max_steps": )" << evaluations * 10
                            << R"(, "steps_per_epoch": 1000, "save_strategy": "steps", "save_steps": 10,)"
                            << R"( "policy": {"patience": 1000000}, "faults": []}})";
        return file;
    }

    // Peak resident memory of `ckptsim replay FILE --json`, in KiB, and what it printed.
    long peak_kib(const std::string& file, std::string& out) {
        const auto started = start_process({CKPTSIM_BINARY, "replay", file, "--json"}, dir());
        int status = 0;
        rusage usage{};
        EXPECT_EQ(wait4(started.pid, &status, 0, &usage), started.pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_all(started.err_path);
        out = read_all(started.out_path);
        return usage.ru_maxrss;
    }

    // How much higher the replay of `larger` peaks than that of `smaller`, in KiB; each report
    // must contain its marker (the work the run did).
    long peak_growth_kib(const std::string& smaller, const std::string& smaller_marker,
                         const std::string& larger, const std::string& larger_marker) {
        std::string smaller_out;
        std::string larger_out;
        const long smaller_peak = peak_kib(smaller, smaller_out);
        const long larger_peak = peak_kib(larger, larger_out);
        EXPECT_NE(smaller_out.find(smaller_marker), std::string::npos) << smaller_out.substr(0, 400);
        EXPECT_NE(larger_out.find(larger_marker), std::string::npos) << larger_out.substr(0, 400);
        return larger_peak - smaller_peak;
    }
};

TEST_F(LongRunMemory, PeakDoesNotFollowMaxSteps) {
    // Both runs did the same work, so any difference is memory sized by max_steps.
    EXPECT_LT(
        peak_growth_kib(scenario_file(2'000), R"("steps":140)", scenario_file(2'000'000), R"("steps":140)"),
        4 * 1024)
        << "KiB more at 2,000,000 max_steps than at 2,000";
}

// The sanitizers' shadow memory and quarantine of freed blocks grow with every allocation a run
// makes, whatever it keeps, so the comparison means nothing under them.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

TEST_F(LongRunMemory, PeakDoesNotFollowEvaluations) {
    if (kUnderAddressSanitizer) {
        GTEST_SKIP() << "peak RSS under AddressSanitizer follows allocations, not what the run keeps";
    }
    // 7,500 more evaluations: the ledger's decision tree and the ranks checker's expectations keep
    // under 200 bytes each (about 3 MiB measured, with the allocator's slack). Every checkpoint's
    // record, trace line or removed file kept grew it by 49 MiB (6.7 KB per evaluation).
    EXPECT_LT(peak_growth_kib(long_run_file(2'500), R"("evaluations":2500,)", long_run_file(10'000),
                              R"("evaluations":10000,)"),
              12 * 1024)
        << "KiB more at 10,000 evaluations than at 2,500";
}

}  // namespace
}  // namespace ckpt::testing
