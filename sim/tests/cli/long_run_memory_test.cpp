// Peak memory must not follow max_steps (issue 14): the same scenario, stopped by the policy at
// the same step, replayed with max_steps 2,000 and 2,000,000, peaks within a few MiB. Measured as
// the child's ru_maxrss (wait4), never a time. A structure sized by max_steps (the random walk
// laid out in full took 16 MB at 2,000,000) fails it.
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
};

TEST_F(LongRunMemory, PeakDoesNotFollowMaxSteps) {
    std::string short_out;
    std::string long_out;
    const long short_peak = peak_kib(scenario_file(2'000), short_out);
    const long long_peak = peak_kib(scenario_file(2'000'000), long_out);
    // Both runs did the same work, so any difference is memory sized by max_steps.
    EXPECT_NE(short_out.find(R"("steps":140)"), std::string::npos) << short_out.substr(0, 400);
    EXPECT_NE(long_out.find(R"("steps":140)"), std::string::npos) << long_out.substr(0, 400);
    EXPECT_LT(long_peak - short_peak, 4 * 1024)
        << short_peak << " KiB at 2,000, " << long_peak << " KiB at 2,000,000 max_steps";
}

}  // namespace
}  // namespace ckpt::testing
