// The shapes below restate what Transformers and the sidecar writer produce (transformers_facts
// section 5, sidecar_format.hpp); they are lists of names, not calls into the readers.
#include "policy/inspect/foreign_content.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace ckpt {

using nlohmann::json;

namespace {

void check_saved_state(const json& state, const std::string& where, std::vector<std::string>& out) {
    if (!state.is_object()) {
        out.push_back(where + " is a " + state.type_name() + ", not an object with args and attributes");
        return;
    }
    for (const char* member : {"args", "attributes"}) {
        const auto found = state.find(member);
        if (found != state.end() && !found->is_object()) {
            out.push_back(where + "." + member + " is a " + found->type_name() + ", not an object");
        }
    }
}

void collect_unknown(const json& object, std::initializer_list<std::string_view> known,
                     const std::string& prefix, std::vector<std::string>& out) {
    if (!object.is_object()) {
        return;
    }
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            out.push_back(prefix + key);
        }
    }
}

}  // namespace

std::vector<std::string> stateful_callbacks_defects(const json& trainer_state) {
    std::vector<std::string> out;
    if (!trainer_state.is_object()) {
        return out;
    }
    const auto callbacks = trainer_state.find("stateful_callbacks");
    if (callbacks == trainer_state.end() || callbacks->is_null()) {
        return out;
    }
    if (!callbacks->is_object()) {
        out.push_back(std::string("stateful_callbacks is a ") + callbacks->type_name() +
                      ", not an object of callback states");
        return out;
    }
    for (const auto& [name, entry] : callbacks->items()) {
        const auto where = "stateful_callbacks." + name;
        if (!entry.is_array()) {
            check_saved_state(entry, where, out);
            continue;
        }
        for (std::size_t i = 0; i < entry.size(); ++i) {
            check_saved_state(entry[i], where + "[" + std::to_string(i) + "]", out);
        }
    }
    return out;
}

std::vector<std::string> unknown_sidecar_fields(const json& sidecar) {
    std::vector<std::string> out;
    collect_unknown(sidecar,
                    {"checkpoint_eval_state", "last_evaluated_step", "version", "migrated_from_version"}, "",
                    out);
    if (!sidecar.is_object() || !sidecar.contains("checkpoint_eval_state")) {
        return out;
    }
    const auto& policy = sidecar["checkpoint_eval_state"];
    collect_unknown(policy, {"patience", "patience_start_step", "state", "tie_policy", "version"},
                    "checkpoint_eval_state.", out);
    if (policy.is_object() && policy.contains("state")) {
        collect_unknown(policy["state"],
                        {"best_is_external", "best_score", "best_step", "evaluation_count",
                         "lower_score_streak", "stop_requested"},
                        "checkpoint_eval_state.state.", out);
    }
    return out;
}

namespace {

enum class Written { integer, boolean, text, score, step };

bool has_written_type(const json& value, Written type) {
    switch (type) {
        case Written::integer:
            return value.is_number_integer();
        case Written::boolean:
            return value.is_boolean();
        case Written::text:
            return value.is_string();
        case Written::score:
            return value.is_null() || value.is_number();
        case Written::step:
            return value.is_null() || value.is_number_integer();
    }
    return false;
}

const char* written_name(Written type) {
    switch (type) {
        case Written::integer:
            return "an integer";
        case Written::boolean:
            return "true or false";
        case Written::text:
            return "a string";
        case Written::score:
            return "a number or null";
        case Written::step:
            return "an integer or null";
    }
    return "";
}

void check_types(const json& object, std::initializer_list<std::pair<const char*, Written>> fields,
                 const std::string& prefix, std::vector<std::string>& out) {
    if (!object.is_object()) {
        return;
    }
    for (const auto& [key, type] : fields) {
        const auto found = object.find(key);
        if (found != object.end() && !has_written_type(*found, type)) {
            out.push_back(prefix + key + " is " +
                          found->dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 40) +
                          ", not " + written_name(type));
        }
    }
}

}  // namespace

std::vector<std::string> sidecar_type_defects(const json& sidecar) {
    std::vector<std::string> out;
    if (!sidecar.is_object() || !sidecar.contains("checkpoint_eval_state")) {
        return out;
    }
    const auto& policy = sidecar["checkpoint_eval_state"];
    check_types(policy,
                {{"patience", Written::integer},
                 {"patience_start_step", Written::integer},
                 {"tie_policy", Written::text},
                 {"version", Written::integer}},
                "checkpoint_eval_state.", out);
    if (policy.is_object() && policy.contains("state")) {
        check_types(policy["state"],
                    {{"best_is_external", Written::boolean},
                     {"best_score", Written::score},
                     {"best_step", Written::step},
                     {"evaluation_count", Written::integer},
                     {"lower_score_streak", Written::integer},
                     {"stop_requested", Written::boolean}},
                    "checkpoint_eval_state.state.", out);
    }
    return out;
}

std::string checkpoint_name_defect(const std::string& name) {
    constexpr std::string_view prefix = "checkpoint-";
    const std::string_view digits = std::string_view(name).substr(prefix.size());
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return "its N is not a decimal number, so neither Transformers nor ckptsim treat it as a checkpoint";
    }
    if (digits.size() > 1 && digits.front() == '0') {
        return "its N has a leading zero: Transformers resumes from it as step " +
               std::string(digits.substr(digits.find_first_not_of('0') == std::string_view::npos
                                             ? digits.size() - 1
                                             : digits.find_first_not_of('0'))) +
               ", but the Trainer itself never writes that name";
    }
    if (digits.size() > 19 || (digits.size() == 19 && digits > "9223372036854775807")) {
        return "its N is beyond any 64-bit step: Transformers' get_last_checkpoint would pick it first";
    }
    return {};
}

}  // namespace ckpt
