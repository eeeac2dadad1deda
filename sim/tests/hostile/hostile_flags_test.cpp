// Hostile command-line flags for every subcommand. Each case must end with exit status 2 within
// the time limit and a stderr line naming the flag (or the argument) that was refused: a value
// that CLI11's loose conversions would wrap, round or saturate counts as accepted silently.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/tests/hostile/hostile_harness.hpp"

namespace ckpt::testing::hostile {
namespace {

struct FlagCase {
    std::string name;
    std::vector<std::string> args;
    std::string named;  // what stderr must mention
};

std::ostream& operator<<(std::ostream& out, const FlagCase& c) {
    return out << c.name;
}

const std::string k2Pow64 = "18446744073709551616";
const std::string k10Pow23 = "100000000000000000000000";

std::vector<FlagCase> flag_cases() {
    return {
        {"run_seed_2pow64", {"run", "--seed", k2Pow64}, "--seed"},
        {"run_seed_negative", {"run", "--seed", "-1"}, "--seed"},
        {"run_seed_fraction", {"run", "--seed", "1.5"}, "--seed"},
        {"run_seed_exponent", {"run", "--seed", "1e3"}, "--seed"},
        {"run_seed_hex", {"run", "--seed", "0x10"}, "--seed"},
        {"run_seed_empty", {"run", "--seed", ""}, "--seed"},
        {"run_seed_text", {"run", "--seed", "seven"}, "--seed"},
        {"run_seed_missing", {"run"}, "--seed"},
        {"run_ranks_zero", {"run", "--seed", "1", "--ranks", "0"}, "--ranks"},
        {"run_ranks_nine", {"run", "--seed", "1", "--ranks", "9"}, "--ranks"},
        {"run_ranks_huge", {"run", "--seed", "1", "--ranks", k10Pow23}, "--ranks"},
        {"run_max_steps_zero", {"run", "--seed", "1", "--max-steps", "0"}, "--max-steps"},
        {"run_max_steps_negative", {"run", "--seed", "1", "--max-steps", "-5"}, "--max-steps"},
        {"run_max_steps_beyond_cap", {"run", "--seed", "1", "--max-steps", "10000001"}, "--max-steps"},
        {"run_max_steps_boolean", {"run", "--seed", "1", "--max-steps", "true"}, "--max-steps"},
        {"run_stop_test_unknown", {"run", "--seed", "1", "--stop-test", "sometimes"}, "--stop-test"},
        {"run_mutant_unknown", {"run", "--seed", "1", "--mutant", "no_such_mutant"}, "--mutant"},
        {"run_trace_unwritable",
         {"run", "--seed", "1", "--trace", "/nonexistent-dir/trace.jsonl"},
         "--trace"},
        {"run_unknown_flag", {"run", "--seed", "1", "--bogus"}, "--bogus"},
        {"explore_seeds_zero", {"explore", "--seeds", "0"}, "--seeds"},
        {"explore_seeds_negative", {"explore", "--seeds", "-1"}, "--seeds"},
        {"explore_seeds_2pow64", {"explore", "--seeds", k2Pow64}, "--seeds"},
        {"explore_time_nan", {"explore", "--time", "nan"}, "--time"},
        {"explore_time_inf", {"explore", "--time", "inf"}, "--time"},
        {"explore_time_negative", {"explore", "--time", "-1"}, "--time"},
        {"explore_time_huge", {"explore", "--time", "1e300"}, "--time"},
        {"explore_jobs_negative", {"explore", "--seeds", "1", "--jobs", "-1"}, "--jobs"},
        {"explore_jobs_huge", {"explore", "--seeds", "1", "--jobs", "100000"}, "--jobs"},
        {"explore_first_seed_negative", {"explore", "--seeds", "1", "--first-seed", "-1"}, "--first-seed"},
        {"explore_first_seed_2pow64", {"explore", "--seeds", "1", "--first-seed", k2Pow64}, "--first-seed"},
        {"explore_shard_zero", {"explore", "--seeds", "1", "--shard", "0/2"}, "--shard"},
        {"explore_shard_past_count", {"explore", "--seeds", "1", "--shard", "3/2"}, "--shard"},
        {"explore_shard_text", {"explore", "--seeds", "1", "--shard", "a/b"}, "--shard"},
        {"explore_mutant_unknown", {"explore", "--seeds", "1", "--mutant", "no_such_mutant"}, "--mutant"},
        {"mutants_budget_zero", {"mutants", "--budget", "0"}, "--budget"},
        {"mutants_budget_negative", {"mutants", "--budget", "-1"}, "--budget"},
        {"mutants_budget_2pow64", {"mutants", "--budget", k2Pow64}, "--budget"},
        {"mutants_jobs_negative", {"mutants", "--budget", "1", "--jobs", "-3"}, "--jobs"},
        {"mutants_only_unknown", {"mutants", "--budget", "1", "--only", "no_such_mutant"}, "--only"},
        {"policy_patience_10pow23", {"policy", "--patience", k10Pow23}, "--patience"},
        {"policy_patience_fraction", {"policy", "--patience", "2.5"}, "--patience"},
        {"policy_patience_negative", {"policy", "--patience", "-1"}, "--patience"},
        {"policy_patience_zero", {"policy", "--patience", "0"}, "--patience"},
        {"policy_tie_policy_unknown", {"policy", "--tie-policy", "sometimes"}, "--tie-policy"},
        {"policy_start_step_huge", {"policy", "--patience-start-step", k10Pow23}, "--patience-start-step"},
        {"policy_start_step_negative", {"policy", "--patience-start-step", "-4"}, "--patience-start-step"},
        {"replay_missing_file", {"replay"}, "file"},
        {"inspect_missing_dir", {"inspect"}, "OUTPUT_DIR"},
        {"no_subcommand", {}, "subcommand"},
        {"unknown_subcommand", {"frobnicate"}, "frobnicate"},
    };
}

class HostileFlags : public CkptsimProcessTest, public ::testing::WithParamInterface<FlagCase> {
  protected:
    HostileFlags() : CkptsimProcessTest("ckptsim-hostile-flags") {}
};

TEST_P(HostileFlags, IsRefusedWithExitTwoNamingTheFlag) {
    const auto& c = GetParam();
    const auto done = run_limited(c.args, dir(), std::nullopt, 60);
    EXPECT_EQ(done.exit_code, 2) << "stdout: " << done.out << "\nstderr: " << done.err;
    EXPECT_NE(done.err.find(c.named), std::string::npos)
        << "stderr does not name " << c.named << ": " << done.err;
}

INSTANTIATE_TEST_SUITE_P(EverySubcommand, HostileFlags, ::testing::ValuesIn(flag_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ckpt::testing::hostile
