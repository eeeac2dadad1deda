// ckptsim: one executable, one subcommand per use of the product.
#include <algorithm>
#include <exception>
#include <iostream>
#include <vector>

#include "policy/base/errors.hpp"
#include "sim/base/version.hpp"
#include "sim/cli/command.hpp"

int main(int argc, char** argv) {
    CLI::App app{"ckptsim: deterministic simulation and property testing of best-only checkpoint retention"};
    app.set_version_flag("--version", "ckptsim " + std::string(ckpt::sim::kCkptsimVersion) +
                                          " (scenario format " + std::to_string(ckpt::sim::kScenarioFormat) +
                                          ")");
    app.require_subcommand(1);
    const std::vector<ckpt::cli::Command> commands{
        ckpt::cli::add_policy_command(app),       ckpt::cli::add_run_command(app),
        ckpt::cli::add_replay_command(app),       ckpt::cli::add_explore_command(app),
        ckpt::cli::add_mutants_command(app),      ckpt::cli::add_inspect_command(app),
        ckpt::cli::add_shrink_command(app),       ckpt::cli::add_vectors_command(app),
        ckpt::cli::add_check_policy_command(app), ckpt::cli::add_merge_command(app),
    };

    // CLI11 answers an unknown first word with "A subcommand is required"; name the word instead.
    const auto known = [&](const char* word) {
        return std::any_of(commands.begin(), commands.end(),
                           [&](const auto& c) { return c.app->get_name() == word; });
    };
    if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
        std::cerr << "ckptsim: unknown subcommand '" << argv[1]
                  << "' (expected policy, run, replay, shrink, explore, mutants, merge, inspect, vectors "
                     "or check-policy; see --help)\n";
        return ckpt::cli::kExitBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        // CLI11 has its own non-zero codes; the product promises 2 for every kind of bad input.
        return app.exit(error) == 0 ? ckpt::cli::kExitOk : ckpt::cli::kExitBadInput;
    }
    for (const auto& command : commands) {
        if (command.app->parsed()) {
            try {
                return command.run();
            } catch (const ckpt::ValueError& error) {
                std::cerr << "ckptsim " << command.app->get_name() << ": " << error.what() << "\n";
                return ckpt::cli::kExitBadInput;
            } catch (const std::exception& error) {
                // An I/O failure on a path the user gave (--out, --trace, a file): still a clean
                // exit with the reason, never std::terminate's abort.
                std::cerr << "ckptsim " << command.app->get_name() << ": " << error.what() << "\n";
                return ckpt::cli::kExitBadInput;
            }
        }
    }
    return ckpt::cli::kExitBadInput;
}
