// `ckptsim policy`: the policy alone over JSON Lines. This is the protocol other
// implementations are compared with, so its shape is fixed (see README).
#include <iostream>
#include <limits>
#include <string>

#include "policy/base/errors.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/cli/command.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

struct PolicyOptions {
    long long patience = 3;
    std::string tie_policy = "reset";
    long long patience_start_step = 0;
};

// An input line that is not one of the protocol's forms. Distinct from the policy's own
// errors, which are answered with the policy state and do not fail the run.
struct InputError {
    std::string message;
};

// The protocol spells non-finite scores as strings because JSON has no literal for them.
json decode_score(const json& score) {
    if (score.is_string()) {
        const auto& text = score.get_ref<const std::string&>();
        if (text == "nan") {
            return std::numeric_limits<double>::quiet_NaN();
        }
        if (text == "inf") {
            return std::numeric_limits<double>::infinity();
        }
        if (text == "-inf") {
            return -std::numeric_limits<double>::infinity();
        }
    }
    return score;
}

const json& require_object(const json& value, const std::string& what) {
    if (!value.is_object()) {
        throw InputError{what + " must be a JSON object"};
    }
    return value;
}

void reject_unknown_keys(const json& object, std::initializer_list<std::string_view> allowed,
                         const std::string& where) {
    for (const auto& [key, value] : object.items()) {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            throw InputError{"unknown key '" + key + "' in " + where};
        }
    }
}

const json& require_field(const json& object, const char* field, const std::string& where) {
    const auto found = object.find(field);
    if (found == object.end()) {
        throw InputError{"missing field '" + std::string(field) + "' in " + where};
    }
    return *found;
}

json answer_line(CheckpointEvaluationPolicy& policy, const std::string& line) {
    json request;
    try {
        request = json::parse(line);
    } catch (const json::exception& error) {
        // Also out_of_range: a number such as 1e400 that no double holds.
        throw InputError{std::string("line is not valid JSON: ") + error.what()};
    }
    require_object(request, "a request line");
    if (request.size() != 1) {
        throw InputError{"a request line must hold exactly one of 'observe', 'baseline', 'load'"};
    }
    // Named through the object's own iterator: items() is a temporary proxy, and bindings into
    // what it yields dangle.
    const auto member = request.begin();
    const std::string verb = member.key();
    const json& body = member.value();
    try {
        if (verb == "observe") {
            require_object(body, "'observe'");
            reject_unknown_keys(body, {"score", "step"}, "'observe'");
            const auto decision = policy.observe(decode_score(require_field(body, "score", "'observe'")),
                                                 require_field(body, "step", "'observe'"));
            return {{"decision", decision.to_dict()}, {"state", policy.state_dict()}};
        }
        if (verb == "baseline") {
            require_object(body, "'baseline'");
            reject_unknown_keys(body, {"score", "step"}, "'baseline'");
            const auto step = body.find("step");
            policy.establish_external_baseline(decode_score(require_field(body, "score", "'baseline'")),
                                               step != body.end() ? *step : json(0));
            return {{"state", policy.state_dict()}};
        }
        if (verb == "load") {
            policy.load_state_dict(body);
            return {{"state", policy.state_dict()}};
        }
    } catch (const ValueError& error) {
        return {{"error", {{"kind", "value_error"}, {"message", error.what()}}},
                {"state", policy.state_dict()}};
    } catch (const RuntimeError& error) {
        return {{"error", {{"kind", "runtime_error"}, {"message", error.what()}}},
                {"state", policy.state_dict()}};
    }
    throw InputError{"unknown key '" + verb + "': expected 'observe', 'baseline' or 'load'"};
}

bool is_blank(const std::string& line) {
    return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

int run_policy(const PolicyOptions& options) {
    auto policy = CheckpointEvaluationPolicy::from_loose_settings(options.patience, options.tie_policy,
                                                                  options.patience_start_step);
    bool any_input_error = false;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (is_blank(line)) {
            continue;
        }
        json answer;
        try {
            answer = answer_line(policy, line);
        } catch (const InputError& error) {
            any_input_error = true;
            answer = {{"error", {{"kind", "input_error"}, {"message", error.message}}}};
        }
        std::cout << answer.dump() << '\n';
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
        ->capture_default_str();
    command->add_option("--tie-policy", options->tie_policy, "What a tie does: reset, ignore, stop or count")
        ->capture_default_str();
    command
        ->add_option("--patience-start-step", options->patience_start_step,
                     "Evaluations before this step never consume patience")
        ->capture_default_str();
    return {command, [options, command]() {
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
