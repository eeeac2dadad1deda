// `ckptsim explore`: the swarm over many seeds, with a summary table, optional JSON and JUnit XML,
// progress on a terminal, and Ctrl-C printing what was found so far (exit 130).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "policy/base/mutants.hpp"
#include "sim/cli/build_id.hpp"
#include "sim/cli/callback_flags.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/explore_report.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/junit_report.hpp"
#include "sim/cli/mutant_flag.hpp"
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
    std::string junit;
    TrainerOverrides trainer;
    CallbackFlags callback;
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

// Each file carries the armed mutant, so its replay reproduces the violation on its own.
void save_violations(const sim::ExploreSummary& summary, std::optional<mutants::Mutant> mutant,
                     const std::optional<sim::CallbackSpec>& callback, const std::string& out_dir,
                     std::vector<std::string>& replays) {
    if (summary.violations.empty()) {
        return;
    }
    std::filesystem::create_directories(out_dir);
    for (const auto& found : summary.violations) {
        sim::ScenarioFile file;
        file.scenario = found.scenario;
        file.mutant = mutant;
        file.callback = callback;
        sim::ScenarioResult result;
        result.violations = found.violations;
        file.expected = sim::verdicts(result);
        const auto path = out_dir + "/seed-" + std::to_string(found.seed) +
                          (mutant ? "-" + std::string(mutants::name_of(*mutant)) : std::string()) + ".json";
        file.save(path);
        replays.push_back("ckptsim replay " + path);
    }
}

void write_junit_file(const std::string& path, const sim::ExploreSummary& summary,
                      const std::vector<std::string>& replays) {
    const auto temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::trunc);
        write_junit(out, summary, replays);
        if (!out) {
            throw sim::ScenarioError("--junit: cannot write " + path);
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        throw sim::ScenarioError("--junit: cannot write " + path);
    }
}

// What `merge` compares across shards besides the seeds: the build and the run's configuration.
nlohmann::json provenance(const ExploreCliOptions& o, const sim::ExploreOptions& options, bool seeds_given,
                          bool time_given) {
    using nlohmann::json;
    return {{"build_id", build_id()},
            {"run",
             {{"first_seed", options.first_seed},
              {"seeds", seeds_given || !time_given ? json(options.seeds) : json(nullptr)},
              {"time_budget_seconds", time_given ? json(o.time) : json(nullptr)},
              {"mutant", options.mutant ? json(mutants::name_of(*options.mutant)) : json(nullptr)},
              {"trainer_overrides", o.trainer.to_json()},
              {"callback_command", o.callback.given() ? json(o.callback.command) : json(nullptr)},
              {"callback_restore", o.callback.given() ? json(o.callback.restore) : json(nullptr)}}}};
}

// --seeds alone: that many seeds. --time alone: as many seeds as the time allows. Both: the
// seeds, cut short when the time runs out (the summary says how far it got).
int run_explore(const ExploreCliOptions& o, bool seeds_given, bool time_given) {
    sim::ExploreOptions options;
    options.first_seed = o.first_seed;
    options.seeds = o.seeds;
    if (time_given) {
        options.time_budget_seconds = o.time;
        if (!seeds_given) {
            options.seeds = UINT64_MAX - o.first_seed;  // the clock decides
        }
    }
    options.jobs = o.jobs > 0 ? o.jobs : std::max(1U, std::thread::hardware_concurrency());
    options.mutant = find_mutant_flag(o.mutant);
    options.external_callback = o.callback.spec();
    if (o.trainer.any()) {
        options.adjust = [trainer = o.trainer](sim::Scenario& scenario) { trainer.apply(scenario); };
    }
    if (!o.shard.empty()) {
        std::tie(options.shard_index, options.shard_count) = parse_shard(o.shard);
    }
    options.interrupted = &install_interrupt_flag();
    if (isatty(STDERR_FILENO) != 0 && !o.json) {
        const std::optional<std::uint64_t> total =
            seeds_given || !time_given ? std::optional<std::uint64_t>(options.seeds / options.shard_count)
                                       : std::nullopt;
        options.progress = [total, budget = options.time_budget_seconds](const sim::ExploreProgress& p) {
            std::fprintf(stderr, "\r\033[K  %s", progress_line(p, total, budget).c_str());
            std::fflush(stderr);
        };
    }
    const auto summary = sim::explore(options);
    if (options.progress) {
        std::fprintf(stderr, "\n");
    }
    if (summary.interrupted) {
        std::cerr << "ckptsim explore: interrupted; the summary covers the " << summary.scenarios
                  << " scenarios finished\n";
    }
    std::vector<std::string> replays;
    save_violations(summary, options.mutant, options.external_callback, o.out_dir, replays);
    if (!o.junit.empty()) {
        write_junit_file(o.junit, summary, replays);
    }
    if (o.json) {
        std::cout << explore_json(summary, replays, provenance(o, options, seeds_given, time_given)).dump()
                  << "\n";
    } else {
        print_explore_summary(std::cout, summary, replays);
    }
    if (summary.interrupted) {
        return kExitInterrupted;
    }
    if (!summary.harness_errors.empty()) {
        const auto& [seed, detail] = summary.harness_errors.front();
        std::cerr << "ckptsim explore: the external callback failed the harness in "
                  << summary.harness_errors.size() << " scenarios; the first, seed " << seed << ":\n"
                  << detail << "\n";
        return kExitBadInput;
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
    auto* time =
        command
            ->add_option("--time", o->time,
                         "Explore for this many seconds (with --seeds: stop at whichever comes first)")
            ->check(finite_positive(kMaxExploreSeconds));
    command
        ->add_option("--jobs", o->jobs,
                     "Worker threads; 0 (the default) means one per core. Results do not depend on it")
        ->check(unsigned_in(0, kMaxJobs));
    command->add_option("--shard", o->shard, "Take only shard K of N (K/N), for a CI matrix");
    command->add_option("--first-seed", o->first_seed, "The first seed")
        ->check(unsigned_in(0, kMaxSeeds))
        ->capture_default_str();
    command->add_option("--out", o->out_dir, "Where violating scenarios are written")->capture_default_str();
    command->add_flag("--json", o->json, "Print one JSON object");
    command->add_option("--mutant", o->mutant,
                        "Explore with a catalogue mutant armed ('none': the real code)");
    command->add_option("--junit", o->junit, "Also write the summary as JUnit XML to this file");
    o->trainer.add_to(command);
    o->callback.add_to(command);
    return {command, [o, seeds, time]() { return run_explore(*o, seeds->count() > 0, time->count() > 0); }};
}

}  // namespace ckpt::cli
