// `ckptsim run` and `ckptsim replay`: one scenario, every property checked, twice for P8.
#include <fstream>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "sim/cli/callback_flags.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/mutant_flag.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/cli/scenario_report.hpp"
#include "sim/cli/trace_spool.hpp"
#include "sim/cli/trace_svg.hpp"
#include "sim/cli/trace_text.hpp"
#include "sim/cli/trainer_overrides.hpp"
#include "sim/scenario/swarm.hpp"

namespace ckpt::cli {
namespace {

struct RunOptions {
    std::uint64_t seed = 0;
    bool json = false;
    std::string trace_path;
    bool trace_text = false;
    std::string svg_path;
    bool svg_time = false;
    std::string out_dir = "ckptsim-failures";
    std::string mutant;
    int ranks = 0;
    std::int64_t max_steps = 0;
    bool no_faults = false;
    TrainerOverrides trainer;
    CallbackFlags callback;
    bool builtin_callback = false;  // replay: the C++ port in place of the file's external callback
};

// The readable trace: all of it with --trace-text; without it, a failed run shows the 30 lines
// that lead to its first violation and the few after it (never with --json). Only the lines it
// prints, and those before them, are read back from the spool.
void print_readable_trace(const TraceSpool& trace, const RunOptions& options) {
    TextTraceOptions text;
    text.colour = isatty(STDOUT_FILENO) != 0;
    if (!options.trace_text) {
        const auto violation = trace.first_violation();
        if (options.json || violation == trace.size()) {
            return;
        }
        text.first = violation > 30 ? violation - 30 : 0;
        text.last = violation + 4;
        std::cout << "trace up to the first violation (lines " << text.first << ".."
                  << std::min(text.last, trace.size()) - 1 << " of " << trace.size()
                  << "; all of it: --trace-text)\n";
    }
    print_text_trace(std::cout, trace.read(text.last), text);
}

int report_and_exit(const ScenarioReport& report, const TraceSpool& trace, const RunOptions& options) {
    if (!options.trace_path.empty()) {
        write_trace(options.trace_path, trace);
    }
    if (!options.svg_path.empty()) {
        std::ofstream svg(options.svg_path, std::ios::binary | std::ios::trunc);
        svg << render_svg_timeline(trace.read(), {options.svg_time});
        if (!svg) {
            throw sim::ScenarioError("cannot write the timeline to " + options.svg_path);
        }
    }
    print_readable_trace(trace, options);
    if (options.json) {
        std::cout << report_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        print_report(std::cout, report);
    }
    if (report.result.outcome == sim::Outcome::harness_error) {
        return kExitBadInput;  // the callback command is the bad input, not the code under test
    }
    return report.result.ok() ? kExitOk : kExitViolation;
}

// Replaces the file's callback with the flags' (a fixed callback, or the C++ port).
void apply_callback(sim::ScenarioFile& file, const RunOptions& options) {
    if (options.builtin_callback) {
        file.callback.reset();
        file.callback_identity = nullptr;
    } else if (auto spec = options.callback.spec()) {
        file.callback = std::move(spec);
        file.callback_identity = nullptr;
    }
}

// A replay whose callback loaded other sources than the recorded ones still runs: say so.
void warn_if_sources_changed(const sim::ScenarioFile& file, const ScenarioReport& report) {
    const auto recorded = file.callback_identity.is_object()
                              ? file.callback_identity.value("sources", nlohmann::json())
                              : nlohmann::json();
    const auto& now = report.result.callback_identity;
    if (!recorded.is_null() && now.is_object() && now.value("sources", nlohmann::json()) != recorded) {
        std::cerr << "warning: the callback's sources differ from the ones recorded in the file (the code "
                     "changed)\n";
    }
}

// With no --mutant a replay keeps its file's mutant; "--mutant none" shows the real code beside it.
void apply_mutant(sim::ScenarioFile& file, const std::string& name) {
    if (!name.empty()) {
        file.mutant = find_mutant_flag(name);
    }
}

void add_common(CLI::App* command, RunOptions& options) {
    command->add_flag("--json", options.json, "Print one JSON object");
    command->add_option("--trace", options.trace_path,
                        "Write the trace as JSON Lines to this file (- for stdout)");
    command->add_flag("--trace-text", options.trace_text,
                      "Print the whole readable trace (a failed run prints the lines before its violation)");
    command->add_option("--svg", options.svg_path, "Draw the run's timeline as SVG into this file");
    command->add_flag("--svg-time", options.svg_time,
                      "In the SVG, x is virtual time instead of the training step");
    command->add_option("--mutant", options.mutant,
                        "Run with a catalogue mutant armed (mutation testing); 'none' runs the real code");
    options.callback.add_to(command);
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
    command->add_option("--out", options->out_dir, "Where a violating scenario is saved")
        ->capture_default_str();
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
                apply_callback(file, *options);
                file.scenario.validate();
                TraceSpool trace;
                return report_and_exit(run_and_report(file, &trace, options->out_dir), trace, *options);
            }};
}

Command add_replay_command(CLI::App& parent) {
    auto options = std::make_shared<RunOptions>();
    auto path = std::make_shared<std::string>();
    auto* command = parent.add_subcommand("replay", "Replay a saved scenario file with an identical result");
    command->add_option("file", *path, "A scenario file written by run, explore or mutants")->required();
    add_common(command, *options);
    // The file is already saved: a replay writes a copy only when asked to.
    options->out_dir.clear();
    command->add_option("--out", options->out_dir, "Also save the scenario, with this run's verdicts, here");
    command->add_flag("--builtin-callback", options->builtin_callback,
                      "Run the C++ port in place of the file's external callback");
    return {command, [options, path]() {
                auto file = sim::ScenarioFile::load(*path);
                apply_mutant(file, options->mutant);
                apply_callback(file, *options);
                TraceSpool trace;
                auto report = run_and_report(file, &trace, options->out_dir);
                warn_if_sources_changed(file, report);
                // A replay of a saved file points back at that file, not a copy of it.
                if (!report.result.ok()) {
                    report.replay_command = "ckptsim replay " + *path;
                }
                return report_and_exit(report, trace, *options);
            }};
}

}  // namespace ckpt::cli
