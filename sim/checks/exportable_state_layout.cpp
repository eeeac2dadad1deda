// The layout of exportable_state_layout.hpp. Values the trainer owns (TrainerControl's flags, the
// trigger's pending flag and trigger count) are judged by shape; everything the checker can
// restate from the scenario, its own models and the ledger is judged by value.
#include "sim/checks/exportable_state_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "sim/checks/reference_policy.hpp"
#include "sim/checks/sidecar_oracle_format.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

bool has_exactly(const json& object, std::initializer_list<std::string_view> keys) {
    if (!object.is_object() || object.size() != keys.size()) {
        return false;
    }
    return std::all_of(keys.begin(), keys.end(), [&](std::string_view key) { return object.contains(key); });
}

// The expected values are assigned member by member rather than written as nested initializer
// lists, which build every pair as an array first: the layout is judged at every checkpoint write.
json expected_early_stopping_state(const ExpectedEarlyStopping& callback) {
    json args = json::object();
    args["early_stopping_patience"] = callback.patience;
    args["early_stopping_threshold"] = callback.threshold;
    json attributes = json::object();
    if (!callback.transformers) {
        attributes["best_metric"] = callback.best ? json(*callback.best) : json(nullptr);
    }
    attributes["early_stopping_patience_counter"] = callback.counter;
    json state = json::object();
    state["args"] = std::move(args);
    state["attributes"] = std::move(attributes);
    if (callback.keyed) {
        state["state_key"] = expected_state_key(callback.patience, callback.threshold);
    }
    return state;
}

json expected_trigger_args(const ExpectedStatefulCallbacks& expected) {
    auto gates = expected.gate_steps;
    std::sort(gates.begin(), gates.end());
    gates.erase(std::unique(gates.begin(), gates.end()), gates.end());
    json args = json::object();
    args["enabled"] = true;
    args["gate_steps"] = gates;
    args["output_dir"] = kOutputDir;
    args["patience"] = expected.policy.patience;
    args["patience_start_step"] = expected.policy.patience_start_step;
    args["regular_steps"] = expected.regular_steps ? json(*expected.regular_steps) : json(nullptr);
    args["save_total_limit"] = expected.save_total_limit;
    args["tie_policy"] = reference_tie_policy_name(expected.policy.tie_policy);
    return args;
}

// An integer as json::parse reads its text: unsigned when not negative.
json lexed_integer(std::int64_t value) {
    return value >= 0 ? json(static_cast<std::uint64_t>(value)) : json(value);
}

// The checkpoint_eval_state member of the oracle's sidecar document (sidecar_oracle_format.hpp)
// as json::parse reads it back. Built member by member: every value the document writes parses
// back to itself (a finite float's repr round-trips), so parsing the text would only cost more
// than the judgement it serves. A non-finite best, which the text cannot hold, takes the text's
// own path, as before.
json oracle_policy_mapping(const PolicySettings& settings, const CheckpointEvaluationState& state) {
    if (state.best_score && !std::isfinite(*state.best_score)) {
        return json::parse(oracle_sidecar_text(settings, state, std::nullopt))["checkpoint_eval_state"];
    }
    json inner = json::object();
    inner["best_is_external"] = state.best_is_external;
    inner["best_score"] = state.best_score ? json(*state.best_score) : json(nullptr);
    inner["best_step"] = state.best_step ? lexed_integer(*state.best_step) : json(nullptr);
    inner["evaluation_count"] = lexed_integer(state.evaluation_count);
    inner["lower_score_streak"] = lexed_integer(state.lower_score_streak);
    inner["stop_requested"] = state.stop_requested;
    json mapping = json::object();
    mapping["patience"] = lexed_integer(settings.patience);
    mapping["patience_start_step"] = lexed_integer(settings.patience_start_step);
    mapping["state"] = std::move(inner);
    mapping["tie_policy"] = reference_tie_policy_name(settings.tie_policy);
    mapping["version"] = lexed_integer(1);
    return mapping;
}

// In-place forms of `live == expected_...(...)`: the same comparisons json's operator== makes
// (an object's keys as a set, then member by member; scalars through json's own ==), without
// building the expected tree, which is built only to describe a departure. Each layout is judged
// at every checkpoint write.

// `value == json(text)`.
bool is_text(const json& value, std::string_view text) {
    return value.is_string() && value.get_ref<const std::string&>() == text;
}

// `object` has exactly `size` members, and `key` among them is `*member`.
const json* member_of(const json& object, std::size_t size, const char* key) {
    if (!object.is_object() || object.size() != size) {
        return nullptr;
    }
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

bool matches_trigger_args(const json& live, const ExpectedStatefulCallbacks& expected) {
    constexpr std::size_t kMembers = 8;
    const auto* gates = member_of(live, kMembers, "gate_steps");
    if (gates == nullptr || !gates->is_array()) {
        return false;
    }
    auto wanted = expected.gate_steps;
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    if (gates->size() != wanted.size() ||
        !std::equal(wanted.begin(), wanted.end(), gates->begin(),
                    [](std::int64_t step, const json& value) { return value == step; })) {
        return false;
    }
    const auto* enabled = member_of(live, kMembers, "enabled");
    const auto* output_dir = member_of(live, kMembers, "output_dir");
    const auto* patience = member_of(live, kMembers, "patience");
    const auto* start = member_of(live, kMembers, "patience_start_step");
    const auto* regular = member_of(live, kMembers, "regular_steps");
    const auto* limit = member_of(live, kMembers, "save_total_limit");
    const auto* tie = member_of(live, kMembers, "tie_policy");
    return enabled != nullptr && *enabled == true && output_dir != nullptr &&
           is_text(*output_dir, kOutputDir) && patience != nullptr && *patience == expected.policy.patience &&
           start != nullptr && *start == expected.policy.patience_start_step && regular != nullptr &&
           (expected.regular_steps ? *regular == *expected.regular_steps : regular->is_null()) &&
           limit != nullptr && *limit == expected.save_total_limit && tie != nullptr &&
           is_text(*tie, reference_tie_policy_name(expected.policy.tie_policy));
}

// `live == oracle_policy_mapping(settings, state)` for a finite (or no) best.
bool matches_policy_mapping(const json& live, const PolicySettings& settings,
                            const CheckpointEvaluationState& state) {
    constexpr std::size_t kMembers = 5;
    constexpr std::size_t kStateMembers = 6;
    const auto* patience = member_of(live, kMembers, "patience");
    const auto* start = member_of(live, kMembers, "patience_start_step");
    const auto* tie = member_of(live, kMembers, "tie_policy");
    const auto* version = member_of(live, kMembers, "version");
    const auto* inner = member_of(live, kMembers, "state");
    if (patience == nullptr || *patience != lexed_integer(settings.patience) || start == nullptr ||
        *start != lexed_integer(settings.patience_start_step) || tie == nullptr ||
        !is_text(*tie, reference_tie_policy_name(settings.tie_policy)) || version == nullptr ||
        *version != lexed_integer(1) || inner == nullptr) {
        return false;
    }
    const auto* external = member_of(*inner, kStateMembers, "best_is_external");
    const auto* best = member_of(*inner, kStateMembers, "best_score");
    const auto* best_step = member_of(*inner, kStateMembers, "best_step");
    const auto* count = member_of(*inner, kStateMembers, "evaluation_count");
    const auto* streak = member_of(*inner, kStateMembers, "lower_score_streak");
    const auto* stop = member_of(*inner, kStateMembers, "stop_requested");
    return external != nullptr && *external == state.best_is_external && best != nullptr &&
           (state.best_score ? *best == *state.best_score : best->is_null()) && best_step != nullptr &&
           (state.best_step ? *best_step == lexed_integer(*state.best_step) : best_step->is_null()) &&
           count != nullptr && *count == lexed_integer(state.evaluation_count) && streak != nullptr &&
           *streak == lexed_integer(state.lower_score_streak) && stop != nullptr &&
           *stop == state.stop_requested;
}

// `live == expected_early_stopping_state(callback)`.
bool matches_early_stopping(const json& live, const ExpectedEarlyStopping& callback) {
    const std::size_t members = callback.keyed ? 3 : 2;
    const auto* args = member_of(live, members, "args");
    const auto* attributes = member_of(live, members, "attributes");
    if (args == nullptr || attributes == nullptr) {
        return false;
    }
    if (callback.keyed) {
        const auto* key = member_of(live, members, "state_key");
        if (key == nullptr || !is_text(*key, expected_state_key(callback.patience, callback.threshold))) {
            return false;
        }
    }
    const auto* patience = member_of(*args, 2, "early_stopping_patience");
    const auto* threshold = member_of(*args, 2, "early_stopping_threshold");
    const std::size_t attribute_count = callback.transformers ? 1 : 2;
    const auto* counter = member_of(*attributes, attribute_count, "early_stopping_patience_counter");
    const bool best_as_expected = [&] {
        if (callback.transformers) {
            return true;
        }
        const auto* best = member_of(*attributes, attribute_count, "best_metric");
        return best != nullptr && (callback.best ? *best == *callback.best : best->is_null());
    }();
    return patience != nullptr && *patience == callback.patience && threshold != nullptr &&
           *threshold == callback.threshold && best_as_expected && counter != nullptr &&
           *counter == callback.counter;
}

std::optional<std::string> trigger_finding(const json& state, const ExpectedStatefulCallbacks& expected) {
    if (!has_exactly(state, {"args", "attributes"})) {
        return "its state is not {\"args\", \"attributes\"}: " + state.dump();
    }
    if (!matches_trigger_args(state["args"], expected)) {
        return "its args are " + state["args"].dump() + ", the configuration gives " +
               expected_trigger_args(expected).dump();
    }
    const auto& attributes = state["attributes"];
    if (!has_exactly(attributes,
                     {"checkpoint_eval_state", "pending_checkpoint_evaluation", "trigger_count"}) ||
        !attributes["pending_checkpoint_evaluation"].is_boolean() ||
        !attributes["trigger_count"].is_number_integer() ||
        attributes["trigger_count"].get<std::int64_t>() < 0) {
        return "its attributes are not the seed's: " + attributes.dump();
    }
    if (expected.policy_state) {
        const auto& state_now = *expected.policy_state;
        if ((!state_now.best_score || std::isfinite(*state_now.best_score)) &&
            matches_policy_mapping(attributes["checkpoint_eval_state"], expected.policy, state_now)) {
            return std::nullopt;
        }
        const auto mapping = oracle_policy_mapping(expected.policy, state_now);
        if (attributes["checkpoint_eval_state"] != mapping) {
            return "its checkpoint_eval_state is " + attributes["checkpoint_eval_state"].dump() +
                   ", the ledger's state is " + mapping.dump();
        }
    }
    return std::nullopt;
}

std::optional<std::string> control_finding(const json& state) {
    if (!has_exactly(state, {"args", "attributes"}) || state["attributes"] != json::object()) {
        return "its state is not {\"args\", \"attributes\": {}}: " + state.dump();
    }
    const auto& args = state["args"];
    const auto flags = {"should_training_stop", "should_epoch_stop", "should_save", "should_evaluate",
                        "should_log"};
    if (!has_exactly(args, {"should_training_stop", "should_epoch_stop", "should_save", "should_evaluate",
                            "should_log"}) ||
        !std::all_of(flags.begin(), flags.end(), [&](const char* flag) { return args[flag].is_boolean(); })) {
        return "its args are not the five control flags: " + args.dump();
    }
    return std::nullopt;
}

}  // namespace

std::string expected_state_key(int patience, double threshold) {
    return "EarlyStoppingCallback{'early_stopping_patience': " + std::to_string(patience) +
           ", 'early_stopping_threshold': " + python_float_repr(threshold) + "}";
}

std::optional<std::string> stateful_callbacks_finding(const json& live,
                                                      const ExpectedStatefulCallbacks& expected) {
    const bool early_stopping = !expected.early_stopping.empty();
    const bool classes = early_stopping
                             ? has_exactly(live, {"CheckpointEvaluationTriggerCallback",
                                                  "EarlyStoppingCallback", "TrainerControl"})
                             : has_exactly(live, {"CheckpointEvaluationTriggerCallback", "TrainerControl"});
    if (!classes) {
        return "stateful_callbacks does not hold one entry per configured class: " + live.dump();
    }
    if (auto finding = trigger_finding(live["CheckpointEvaluationTriggerCallback"], expected)) {
        return "CheckpointEvaluationTriggerCallback: " + *finding;
    }
    if (auto finding = control_finding(live["TrainerControl"])) {
        return "TrainerControl: " + *finding;
    }
    if (early_stopping) {
        const auto& live_states = live["EarlyStoppingCallback"];
        const auto& callbacks = expected.early_stopping;
        const bool matches =
            callbacks.size() == 1
                ? matches_early_stopping(live_states, callbacks.front())
                : live_states.is_array() && live_states.size() == callbacks.size() &&
                      std::equal(callbacks.begin(), callbacks.end(), live_states.begin(),
                                 [](const ExpectedEarlyStopping& callback, const json& state) {
                                     return matches_early_stopping(state, callback);
                                 });
        if (matches) {
            return std::nullopt;
        }
        json states = json::array();
        for (const auto& callback : expected.early_stopping) {
            states.push_back(expected_early_stopping_state(callback));
        }
        const json& want = states.size() == 1 ? states[0] : states;  // one is stored bare
        if (live["EarlyStoppingCallback"] != want) {
            return "EarlyStoppingCallback is " + live["EarlyStoppingCallback"].dump() +
                   ", the layout gives " + want.dump();
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim
