// `ckptsim explore`: the swarm over many seeds, with a summary table.
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "policy/base/mutants.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/explore_report.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/cli/trainer_overrides.hpp"
#include "sim/world/scenario_file.hpp"

namespace ckpt::cli {
namespace {

// Bounds that keep first_seed + seeds and the time budget far from overflow.
constexpr std::uint64_t kMaxSeeds = std::uint64_t{1} << 62;
constexpr double kMaxExploreSeconds = 1e7;

struct ExploreCliOptions {
    std::uint64_t seeds = 2000;
    double time = 0.0;
    unsigned jobs = 0;
    std::string shard;
    std::string out_dir = "ckptsim-failures";
    std::uint64_t first_seed = 1;
    bool json = false;
    std::string mutant;
    TrainerOverrides trainer;
};

// "K/N" with 1 <= K <= N, as CI matrices count.
std::pair<unsigned, unsigned> parse_shard(const std::string& text) {
    unsigned k = 0;
    unsigned n = 0;
    char slash = 0;
    std::istringstream in(text);
    if (!(in >> k >> slash >> n) || slash != '/' || !in.eof() || n == 0 || k == 0 || k > n) {
        throw sim::ScenarioError("--shard: expected K/N with 1 <= K <= N, got '" + text + "'");
    }
    return {k - 1, n};
}

int run_explore(const ExploreCliOptions& o, bool seeds_given, bool time_given) {
    sim::ExploreOptions options;
    options.first_seed = o.first_seed;
    options.seeds = o.seeds;
    if (time_given) {
        options.time_budget_seconds = o.time;
        if (!seeds_given) {
            options.seeds = UINT64_MAX / 2;  // the clock decides
        }
    }
    options.jobs = o.jobs > 0 ? o.jobs : std::max(1U, std::thread::hardware_concurrency());
    if (!o.mutant.empty()) {
        options.mutant = mutants::find(o.mutant);
        if (!options.mutant) {
            throw sim::ScenarioError("--mutant: '" + o.mutant + "' is not in the catalogue");
        }
    }
    if (o.trainer.any()) {
        options.adjust = [trainer = o.trainer](sim::Scenario& scenario) { trainer.apply(scenario); };
    }
    if (!o.shard.empty()) {
        std::tie(options.shard_index, options.shard_count) = parse_shard(o.shard);
    }
    if (isatty(STDERR_FILENO) != 0 && !o.json) {
        const auto total = options.seeds;
        options.progress = [total, time_given](std::uint64_t done, std::uint64_t violations) {
            std::fprintf(stderr, "\r  explored %llu%s scenarios, %llu violating",
                         static_cast<unsigned long long>(done),
                         time_given ? "" : (" / " + std::to_string(total)).c_str(),
                         static_cast<unsigned long long>(violations));
            std::fflush(stderr);
        };
    }
    const auto summary = sim::explore(options);
    if (options.progress) {
        std::fprintf(stderr, "\n");
    }
    std::vector<std::string> replays;
    if (!summary.violations.empty()) {
        std::filesystem::create_directories(o.out_dir);
        for (const auto& found : summary.violations) {
            sim::ScenarioFile file;
            file.scenario = found.scenario;
            sim::ScenarioResult result;
            result.violations = found.violations;
            file.expected = sim::verdicts(result);
            const auto path = o.out_dir + "/seed-" + std::to_string(found.seed) + ".json";
            file.save(path);
            replays.push_back("ckptsim replay " + path);
        }
    }
    if (o.json) {
        std::cout << explore_json(summary, replays).dump() << "\n";
    } else {
        print_explore_summary(std::cout, summary, replays);
    }
    return summary.violations.empty() ? kExitOk : kExitViolation;
}

}  // namespace

Command add_explore_command(CLI::App& parent) {
    auto o = std::make_shared<ExploreCliOptions>();
    auto* command = parent.add_subcommand("explore", "Run the swarm over many seeds and summarise");
    auto* seeds = command->add_option("--seeds", o->seeds, "How many seeds to explore")
                      ->check(unsigned_in(1, kMaxSeeds))
                      ->capture_default_str();
    auto* time = command->add_option("--time", o->time, "Explore for this many seconds instead")
                     ->check(finite_positive(kMaxExploreSeconds));
    command
        ->add_option("--jobs", o->jobs, "Worker threads (default: one per core); results do not depend on it")
        ->check(unsigned_in(0, kMaxJobs));
    command->add_option("--shard", o->shard, "Take only shard K of N (K/N), for a CI matrix");
    command->add_option("--first-seed", o->first_seed, "The first seed")
        ->check(unsigned_in(0, kMaxSeeds))
        ->capture_default_str();
    command->add_option("--out", o->out_dir, "Where violating scenarios are written")->capture_default_str();
    command->add_flag("--json", o->json, "Print one JSON object");
    command->add_option("--mutant", o->mutant, "Explore with a catalogue mutant armed");
    o->trainer.add_to(command);
    return {command, [o, seeds, time]() { return run_explore(*o, seeds->count() > 0, time->count() > 0); }};
}

}  // namespace ckpt::cli
