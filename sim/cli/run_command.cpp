// `ckptsim run` and `ckptsim replay`: one scenario, every property checked, twice for P8.
#include <iostream>
#include <memory>

#include "sim/cli/command.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/cli/scenario_report.hpp"
#include "sim/cli/trainer_overrides.hpp"
#include "sim/scenario/swarm.hpp"

namespace ckpt::cli {
namespace {

struct RunOptions {
    std::uint64_t seed = 0;
    bool json = false;
    std::string trace_path;
    std::string out_dir = "ckptsim-failures";
    std::string mutant;
    int ranks = 0;
    std::int64_t max_steps = 0;
    bool no_faults = false;
    TrainerOverrides trainer;
};

int report_and_exit(const ScenarioReport& report, const RunOptions& options) {
    if (!options.trace_path.empty()) {
        write_trace(options.trace_path, report.result);
    }
    if (options.json) {
        std::cout << report_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        print_report(std::cout, report);
    }
    return report.result.ok() ? kExitOk : kExitViolation;
}

void apply_mutant(sim::ScenarioFile& file, const std::string& name) {
    if (name.empty()) {
        return;
    }
    const auto mutant = mutants::find(name);
    if (!mutant) {
        throw sim::ScenarioError("--mutant: '" + name +
                                 "' is not in the catalogue (see ckptsim mutants --list)");
    }
    file.mutant = mutant;
}

void add_common(CLI::App* command, RunOptions& options) {
    command->add_flag("--json", options.json, "Print one JSON object");
    command->add_option("--trace", options.trace_path,
                        "Write the trace as JSON Lines to this file (- for stdout)");
    command->add_option("--out", options.out_dir, "Where a violating scenario is saved")
        ->capture_default_str();
    command->add_option("--mutant", options.mutant, "Run with a catalogue mutant armed (mutation testing)");
}

}  // namespace

Command add_run_command(CLI::App& parent) {
    auto options = std::make_shared<RunOptions>();
    auto* command =
        parent.add_subcommand("run", "Run one swarm scenario drawn from a seed; check every property");
    command->add_option("--seed", options->seed, "The scenario seed")
        ->required()
        ->check(unsigned_in(0, UINT64_MAX));
    command->add_option("--ranks", options->ranks, "Override the drawn number of ranks (1-8)")
        ->check(unsigned_in(1, 8));
    command->add_option("--max-steps", options->max_steps, "Override the drawn max_steps")
        ->check(unsigned_in(1, sim::kMaxScenarioSteps));
    command->add_flag("--no-faults", options->no_faults, "Drop the drawn faults");
    options->trainer.add_to(command);
    add_common(command, *options);
    return {command, [options]() {
                sim::ScenarioFile file;
                file.scenario = sim::draw_scenario(options->seed);
                if (options->ranks > 0) {
                    file.scenario.job.ranks = options->ranks;
                    std::erase_if(file.scenario.faults,
                                  [&](const auto& f) { return f.rank >= options->ranks; });
                }
                if (options->max_steps > 0) {
                    file.scenario.trainer.max_steps = options->max_steps;
                }
                if (options->no_faults) {
                    file.scenario.faults.clear();
                }
                options->trainer.apply(file.scenario);
                apply_mutant(file, options->mutant);
                file.scenario.validate();
                return report_and_exit(run_and_report(file, !options->trace_path.empty(), options->out_dir),
                                       *options);
            }};
}

Command add_replay_command(CLI::App& parent) {
    auto options = std::make_shared<RunOptions>();
    auto path = std::make_shared<std::string>();
    auto* command = parent.add_subcommand("replay", "Replay a saved scenario file with an identical result");
    command->add_option("file", *path, "A scenario file written by run, explore or mutants")->required();
    add_common(command, *options);
    return {command, [options, path]() {
                auto file = sim::ScenarioFile::load(*path);
                apply_mutant(file, options->mutant);
                auto report = run_and_report(file, !options->trace_path.empty(), options->out_dir);
                // A replay of a saved file points back at that file, not a copy of it.
                if (!report.replay_command.empty()) {
                    report.replay_command = "ckptsim replay " + *path;
                }
                return report_and_exit(report, *options);
            }};
}

}  // namespace ckpt::cli
