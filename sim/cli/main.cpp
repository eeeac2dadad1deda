// ckptsim: one executable, one subcommand per use of the product.
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
        ckpt::cli::add_policy_command(app),  ckpt::cli::add_run_command(app),
        ckpt::cli::add_replay_command(app),  ckpt::cli::add_explore_command(app),
        ckpt::cli::add_mutants_command(app), ckpt::cli::add_inspect_command(app),
    };

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
            }
        }
    }
    return ckpt::cli::kExitBadInput;
}
