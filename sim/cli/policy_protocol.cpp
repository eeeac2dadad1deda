// The `ckptsim policy` protocol, one request line at a time: parse under untrusted_json's limits,
// dispatch to the policy, and answer every failure as a JSON error naming the line. Split from
// the command so that the fuzz target drives exactly the code the command runs.
#include "sim/cli/policy_protocol.hpp"

#include <algorithm>
#include <limits>

#include "policy/base/errors.hpp"
#include "policy/base/untrusted_json.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

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

json answer_line(CheckpointEvaluationPolicy& policy, const std::string& line, std::size_t line_number) {
    json request;
    try {
        request = parse_untrusted_json(line, "line " + std::to_string(line_number));
    } catch (const MalformedJson& error) {
        // Also a number such as 1e400 that no double holds, NaN tokens and trailing control bytes.
        throw InputError{error.what()};
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

}  // namespace

// The answer to one line; any failure that is the line's fault is an input_error naming it.
json answer_policy_line(CheckpointEvaluationPolicy& policy, const std::string& line, std::size_t line_number,
                        bool too_long, bool& any_input_error) {
    std::string message;
    try {
        if (too_long) {
            throw InputError{"line " + std::to_string(line_number) + " is longer than " +
                             std::to_string(kMaxLineBytes) + " bytes"};
        }
        return answer_line(policy, line, line_number);
    } catch (const InputError& error) {
        const std::string where = "line " + std::to_string(line_number);
        message = error.message.rfind(where, 0) == 0 ? error.message : where + ": " + error.message;
    } catch (const std::exception& error) {
        // A request whose shape the policy did not expect (a nlohmann type error, say).
        message = "line " + std::to_string(line_number) + ": " + error.what();
    }
    any_input_error = true;
    return {{"error", {{"kind", "input_error"}, {"message", message}}}};
}

}  // namespace ckpt::cli
