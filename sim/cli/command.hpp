// The CLI's subcommands and their shared exit codes (1 a violation or an inconsistent directory,
// 2 bad input). Each *_command.cpp registers its options on the parent CLI::App; main wires them.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace ckpt::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;  // a property was violated, or a directory is inconsistent
inline constexpr int kExitBadInput = 2;   // bad flag, bad file, bad field

// A subcommand registers its options on its parent and says what to run once parsing succeeded.
struct Command {
    CLI::App* app;
    std::function<int()> run;
};

Command add_policy_command(CLI::App& parent);
Command add_run_command(CLI::App& parent);
Command add_replay_command(CLI::App& parent);
Command add_explore_command(CLI::App& parent);
Command add_mutants_command(CLI::App& parent);
Command add_inspect_command(CLI::App& parent);
Command add_shrink_command(CLI::App& parent);
Command add_vectors_command(CLI::App& parent);
Command add_check_policy_command(CLI::App& parent);
Command add_merge_command(CLI::App& parent);

}  // namespace ckpt::cli
