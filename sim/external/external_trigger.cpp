// Trainer calls as protocol calls, and the control that comes back.
#include "sim/external/external_trigger.hpp"

#include "policy/core/tie_policy.hpp"
#include "sim/base/harness_error.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

json control_json(const TrainerControl& control) {
    return {{"should_training_stop", control.should_training_stop},
            {"should_epoch_stop", control.should_epoch_stop},
            {"should_save", control.should_save},
            {"should_evaluate", control.should_evaluate},
            {"should_log", control.should_log}};
}

// The control the call returned replaces the trainer's; every flag must be there.
void apply_returned_control(const json& returned, TrainerControl& control) {
    const auto found = returned.find("control");
    if (found == returned.end() || !found->is_object()) {
        throw HarnessError("the external callback returned no control object from a call that takes one");
    }
    const auto flag = [&](const char* name) {
        const auto value = found->find(name);
        if (value == found->end() || !value->is_boolean()) {
            throw HarnessError(std::string("the external callback returned a control without a boolean ") +
                               name);
        }
        return value->get<bool>();
    };
    control.should_training_stop = flag("should_training_stop");
    control.should_epoch_stop = flag("should_epoch_stop");
    control.should_save = flag("should_save");
    control.should_evaluate = flag("should_evaluate");
    control.should_log = flag("should_log");
}

constexpr std::string_view kVirtualRoot = "/ckptsim-vfs";

// The process sees the simulator's /run as /ckptsim-vfs/run (a root that does not exist on the
// host, so a call that escapes the shim fails loudly). A state the callback exports is stored in
// the simulator's namespace, as a Trainer running at /run would have stored it, and given back
// in the process's namespace when restored.
void translate_paths(json& value, bool to_simulator) {
    if (value.is_string()) {
        auto& text = value.get_ref<std::string&>();
        if (to_simulator && text.starts_with(kVirtualRoot) &&
            (text.size() == kVirtualRoot.size() || text[kVirtualRoot.size()] == '/')) {
            text.erase(0, kVirtualRoot.size());
        } else if (!to_simulator && text.starts_with("/run/")) {
            text.insert(0, kVirtualRoot);
        }
    } else if (value.is_structured()) {
        for (auto& element : value) {
            translate_paths(element, to_simulator);
        }
    }
}

}  // namespace

void ExternalTrigger::construct(const TriggerCallbackConfig& config) {
    json kwargs = {{"enabled", config.enabled},
                   {"patience", config.policy.patience},
                   {"tie_policy", std::string(to_string(config.policy.tie_policy))},
                   {"patience_start_step", config.policy.patience_start_step},
                   {"gate_steps", config.gate_steps},
                   {"regular_steps", config.regular_steps ? json(*config.regular_steps) : json()},
                   {"save_total_limit", config.save_total_limit}};
    // The sidecar version is what the release running this incarnation writes, not an argument.
    session_->call(
        "construct",
        {{"kwargs", std::move(kwargs)}, {"process_settings", {{"sidecar_version", config.sidecar_version}}}},
        collective_);
}

void ExternalTrigger::restore(const json& saved) {
    json in_process_namespace = saved;
    translate_paths(in_process_namespace, false);
    session_->call("restore_state", {{"saved", std::move(in_process_namespace)}}, collective_);
}

json ExternalTrigger::state() const {
    auto returned = session_->call("export_state", json::object(), collective_);
    auto exported = std::move(returned["value"]);
    translate_paths(exported, true);
    return exported;
}

json ExternalTrigger::state_view(const TrainerStateView& state) const {
    return {{"global_step", state.global_step},
            {"is_world_process_zero", state.is_world_process_zero},
            {"is_local_process_zero", state.is_world_process_zero},
            {"max_steps", facts_.max_steps},
            {"epoch", static_cast<double>(state.global_step) / static_cast<double>(facts_.steps_per_epoch)}};
}

void ExternalTrigger::event(const char* name, json fields, const TrainerStateView& state,
                            TrainerControl& control, std::vector<json> ahead) {
    fields["state"] = state_view(state);
    fields["control"] = control_json(control);
    apply_returned_control(session_->call(name, std::move(fields), collective_, nullptr, std::move(ahead)),
                           control);
}

void ExternalTrigger::on_train_begin(const TrainingArguments& args, const TrainerStateView& state,
                                     TrainerControl& control) {
    json arguments = facts_.arguments;
    arguments["output_dir"] = std::string(kVirtualRoot) + args.output_dir;
    arguments["save_strategy"] = args.save_strategy;
    arguments["save_total_limit"] = args.save_total_limit > 0 ? json(args.save_total_limit) : json();
    arguments["metric_for_best_model"] =
        args.metric_for_best_model.empty() ? json() : json(args.metric_for_best_model);
    arguments["greater_is_better"] = args.greater_is_better;
    arguments["load_best_model_at_end"] = args.load_best_model_at_end;
    arguments["restore_callback_states_from_checkpoint"] = args.restore_callback_states_from_checkpoint;
    // What on_train_begin learns from the trainer around the arguments (trainer_types.hpp).
    json kwargs = {{"stateful_classes_with_several_callbacks", args.stateful_classes_with_several_callbacks},
                   {"refresh_appends_duplicate_states", args.refresh_appends_duplicate_states},
                   {"stateful_classes_the_checkpoint_lacks", args.stateful_classes_the_checkpoint_lacks}};
    event("on_train_begin", {{"args", std::move(arguments)}, {"kwargs", std::move(kwargs)}}, state, control);
}

void ExternalTrigger::establish_external_baseline(double score) {
    session_->call("baseline", {{"score", score}, {"step", 0}}, collective_);
}

// The plain steps that follow run ahead in the process (callback_session.hpp): one message and
// no wait per step instead of a round trip each.
void ExternalTrigger::on_step_end(const TrainerStateView& state, TrainerControl& control,
                                  const StepOutlook& outlook) {
    std::vector<json> ahead;
    if (!session_->has_calls_ahead() && session_->lookahead() > 0) {
        for (const auto& planned : outlook.plain_steps_after(control, session_->lookahead())) {
            ahead.push_back({{"state", state_view({planned.global_step, state.is_world_process_zero})},
                             {"control", control_json(planned.control)}});
        }
    }
    event("on_step_end", json::object(), state, control, std::move(ahead));
}

void ExternalTrigger::on_epoch_end(const TrainerStateView& state, TrainerControl& control) {
    event("on_epoch_end", json::object(), state, control);
}

void ExternalTrigger::on_save(const TrainerStateView& state, TrainerControl& control) {
    event("on_save", json::object(), state, control);
}

bool ExternalTrigger::consume_checkpoint_evaluation() {
    const auto returned = session_->call("consume_checkpoint_evaluation", json::object(), collective_);
    const auto value = returned.find("value");
    if (value == returned.end() || !value->is_boolean()) {
        throw HarnessError("the external callback's consume_checkpoint_evaluation returned no boolean");
    }
    return value->get<bool>();
}

bool ExternalTrigger::commit_pending() {
    const auto returned = session_->call("pending_save_step", json::object(), collective_);
    const auto value = returned.find("value");
    if (value == returned.end() || !(value->is_null() || value->is_number_integer())) {
        throw HarnessError("the external callback's pending_save_step returned neither a step nor null");
    }
    return !value->is_null();
}

void ExternalTrigger::evaluate(TrainerControl& control, double score, std::int64_t step,
                               EvaluationRoundObserver& observer) {
    const auto returned =
        session_->call("evaluate", {{"score", score}, {"step", step}, {"control", control_json(control)}},
                       collective_, &observer);
    apply_returned_control(returned, control);
}

}  // namespace ckpt::sim
