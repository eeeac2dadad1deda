// The layout of exportable_state_layout.hpp. Values the trainer owns (TrainerControl's flags, the
// trigger's pending flag and trigger count) are judged by shape; everything the checker can
// restate from the scenario, its own models and the ledger is judged by value.
#include "sim/checks/exportable_state_layout.hpp"

#include <algorithm>
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

json expected_early_stopping_state(const ExpectedEarlyStopping& callback) {
    json state = {
        {"args",
         {{"early_stopping_patience", callback.patience}, {"early_stopping_threshold", callback.threshold}}},
        {"attributes",
         {{"early_stopping_patience_counter", callback.counter},
          {"best_metric", callback.best ? json(*callback.best) : json(nullptr)}}},
    };
    if (callback.keyed) {
        state["state_key"] = expected_state_key(callback.patience, callback.threshold);
    }
    return state;
}

json expected_trigger_args(const ExpectedStatefulCallbacks& expected) {
    auto gates = expected.gate_steps;
    std::sort(gates.begin(), gates.end());
    gates.erase(std::unique(gates.begin(), gates.end()), gates.end());
    return {{"enabled", true},
            {"patience", expected.policy.patience},
            {"tie_policy", reference_tie_policy_name(expected.policy.tie_policy)},
            {"patience_start_step", expected.policy.patience_start_step},
            {"gate_steps", gates},
            {"regular_steps", expected.regular_steps ? json(*expected.regular_steps) : json(nullptr)},
            {"save_total_limit", expected.save_total_limit},
            {"output_dir", kOutputDir}};
}

std::optional<std::string> trigger_finding(const json& state, const ExpectedStatefulCallbacks& expected) {
    if (!has_exactly(state, {"args", "attributes"})) {
        return "its state is not {\"args\", \"attributes\"}: " + state.dump();
    }
    if (const auto args = expected_trigger_args(expected); state["args"] != args) {
        return "its args are " + state["args"].dump() + ", the configuration gives " + args.dump();
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
        const auto document =
            json::parse(oracle_sidecar_text(expected.policy, *expected.policy_state, std::nullopt));
        if (attributes["checkpoint_eval_state"] != document["checkpoint_eval_state"]) {
            return "its checkpoint_eval_state is " + attributes["checkpoint_eval_state"].dump() +
                   ", the ledger's state is " + document["checkpoint_eval_state"].dump();
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
        json states = json::array();
        for (const auto& callback : expected.early_stopping) {
            states.push_back(expected_early_stopping_state(callback));
        }
        const json want = states.size() == 1 ? states[0] : states;  // one is stored bare
        if (live["EarlyStoppingCallback"] != want) {
            return "EarlyStoppingCallback is " + live["EarlyStoppingCallback"].dump() +
                   ", the layout gives " + want.dump();
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim
