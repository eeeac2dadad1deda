// `ckptsim policy`: the policy alone over JSON Lines. This is the protocol other
// implementations are compared with, so its shape is fixed (see docs/policy-protocol.md). --mutant arms a
// catalogue mutant, so that check-policy can be shown catching a wrong implementation.
#include <iostream>
#include <optional>
#include <string>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/mutant_flag.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/cli/policy_protocol.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

struct PolicyOptions {
    long long patience = 3;
    std::string tie_policy = "reset";
    long long patience_start_step = 0;
    std::string mutant = kNoMutant;
};

bool is_blank(const std::string& line) {
    return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

// The next line of `in` without its '\n', or nullopt at the end. `too_long` reports a line past
// kMaxLineBytes, whose bytes are skipped rather than stored.
std::optional<std::string> next_line(std::istream& in, bool& too_long) {
    std::string line;
    too_long = false;
    std::streambuf* buffer = in.rdbuf();
    for (;;) {
        const auto c = buffer->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            return line.empty() && !too_long ? std::nullopt : std::optional(std::move(line));
        }
        if (c == '\n') {
            return line;
        }
        if (line.size() < kMaxLineBytes) {
            line.push_back(static_cast<char>(c));
        } else {
            too_long = true;
        }
    }
}

int run_policy(const PolicyOptions& options) {
    auto policy = CheckpointEvaluationPolicy::from_loose_settings(options.patience, options.tie_policy,
                                                                  options.patience_start_step);
    bool any_input_error = false;
    bool too_long = false;
    std::size_t line_number = 0;
    while (const auto line = next_line(std::cin, too_long)) {
        ++line_number;
        if (!too_long && is_blank(*line)) {
            continue;
        }
        const json answer = answer_policy_line(policy, *line, line_number, too_long, any_input_error);
        // Replacing invalid UTF-8 keeps one bad byte in an echoed message from aborting the run.
        std::cout << answer.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    }
    std::cout.flush();
    return any_input_error ? kExitBadInput : kExitOk;
}

}  // namespace

Command add_policy_command(CLI::App& parent) {
    auto options = std::make_shared<PolicyOptions>();
    auto* command = parent.add_subcommand(
        "policy", "Run the checkpoint evaluation policy over JSON Lines (stdin to stdout)");
    command->add_option("--patience", options->patience, "Evaluations without improvement before stopping")
        ->check(signed_in(INT64_MIN, INT64_MAX))
        ->capture_default_str();
    command->add_option("--tie-policy", options->tie_policy, "What a tie does: reset, ignore, stop or count")
        ->capture_default_str();
    command
        ->add_option("--patience-start-step", options->patience_start_step,
                     "Evaluations before this step never consume patience")
        ->check(signed_in(INT64_MIN, INT64_MAX))
        ->capture_default_str();
    command
        ->add_option("--mutant", options->mutant,
                     "Arm a catalogue mutant (to see check-policy catch it); 'none' runs the real code")
        ->capture_default_str();
    return {command, [options, command]() {
                // Resolved before the policy's own refusals, which name the settings' flags; an
                // unknown name reaches main as bad input naming --mutant.
                std::optional<mutants::MutantScope> armed;
                if (const auto mutant = find_mutant_flag(options->mutant)) {
                    armed.emplace(*mutant);
                }
                try {
                    return run_policy(*options);
                } catch (const ValueError& error) {
                    // Name the flag whose value the policy refused.
                    const std::string message = error.what();
                    const char* flag = message.rfind("patience_start_step", 0) == 0 ? "--patience-start-step"
                                       : message.rfind("patience", 0) == 0          ? "--patience"
                                                                                    : "--tie-policy";
                    std::cerr << "ckptsim " << command->get_name() << ": " << flag << ": " << message << "\n";
                    return kExitBadInput;
                }
            }};
}

}  // namespace ckpt::cli
