// Scenario::to_json's members, in its dump's bytes: each object's keys in nlohmann's (sorted)
// order, values as the trace's field writer formats them, optional members where to_json adds
// them. Nested objects hold keys the trace envelope reserves ("kind", "rank"), which TraceFields
// refuses at any depth, so they are written here by SortedMembers.
#include "sim/world/scenario_line.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "policy/core/tie_policy.hpp"

namespace ckpt::sim {
namespace {

void append_boolean(std::string& out, bool value) {
    out += value ? "true" : "false";
}

// One object's members into `out`, braces included: a key before the previous one (nlohmann
// would order them differently) is a std::logic_error.
class SortedMembers {
  public:
    explicit SortedMembers(std::string& out) : out_(out) { out_ += '{'; }
    SortedMembers(const SortedMembers&) = delete;
    SortedMembers& operator=(const SortedMembers&) = delete;

    // Opens the member; its value is appended to the returned text.
    std::string& key(std::string_view key) {
        if (!first_) {
            if (!(previous_ < key)) {
                throw std::logic_error("scenario line key '" + std::string(key) + "' is not after '" +
                                       std::string(previous_) + "'");
            }
            out_ += ',';
        }
        first_ = false;
        previous_ = key;
        append_json_string(out_, key);
        out_ += ':';
        return out_;
    }
    void close() { out_ += '}'; }

  private:
    std::string& out_;
    std::string_view previous_;
    bool first_ = true;
};

std::string policy_text(const PolicySettings& policy) {
    std::string out;
    SortedMembers members(out);
    append_json_integer(members.key("patience"), policy.patience);
    append_json_integer(members.key("patience_start_step"), policy.patience_start_step);
    append_json_string(members.key("tie_policy"), to_string(policy.tie_policy));
    members.close();
    return out;
}

void append_fault(std::string& out, const PlannedFault& fault) {
    SortedMembers members(out);
    const bool crash = fault.action == FaultAction::crash;
    const bool io_error = fault.action == FaultAction::io_error;
    const bool rank_death = fault.action == FaultAction::rank_death;
    append_json_string(members.key("action"), kFaultActionNames.name(fault.action));
    if ((crash || rank_death) && fault.aim != FaultAim::none) {
        append_json_string(members.key("aim"), kFaultAimNames.name(fault.aim));
    }
    if (!crash && !io_error) {
        append_json_integer(members.key("at_step"), fault.at_step);
    }
    if (io_error) {
        append_json_string(members.key("error"), kFaultKindNames.name(fault.error));
    }
    if (crash) {
        append_json_string(members.key("kind"), kCrashKindNames.name(fault.kind));
    }
    if (crash || io_error) {
        append_json_unsigned(members.key("occurrence"), fault.occurrence);
    }
    if (crash) {
        append_json_string(members.key("point"), to_string(fault.point));
        if (fault.kind == CrashKind::power_loss) {
            append_json_string(members.key("power_loss"), kPowerLossModeNames.name(fault.power_loss));
        }
    }
    if ((crash && fault.scope == CrashScope::rank) || rank_death) {
        append_json_integer(members.key("rank"), fault.rank);
    }
    if (crash) {
        append_json_string(members.key("scope"), kCrashScopeNames.name(fault.scope));
    }
    if (io_error) {
        append_json_string(members.key("target"), kIoTargetNames.name(fault.target));
    }
    members.close();
}

template <typename T, typename Append>
std::string array_text(const std::vector<T>& items, Append append) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += ',';
        }
        append(out, items[i]);
    }
    out += ']';
    return out;
}

std::string score_text(const ScoreModelConfig& score) {
    std::string out;
    SortedMembers members(out);
    append_boolean(members.key("external_baseline"), score.external_baseline);
    append_json_string(members.key("kind"), kScoreKindNames.name(score.kind));
    append_boolean(members.key("noisy_replay"), score.noisy_replay);
    members.key("script") +=
        array_text(score.script, [](std::string& text, double value) { append_json_number(text, value); });
    members.close();
    return out;
}

std::string resume_change_text(const ResumeChange& change) {
    std::string out;
    SortedMembers members(out);
    if (change.early_stopping) {
        members.key("early_stopping") += array_text(
            *change.early_stopping, [](std::string& text, int value) { append_json_integer(text, value); });
    }
    if (change.early_stopping_callback) {
        append_json_string(members.key("early_stopping_callback"),
                           kEarlyStoppingCallbackKindNames.name(*change.early_stopping_callback));
    }
    if (change.policy) {
        members.key("policy") += policy_text(*change.policy);
    }
    members.close();
    return out;
}

std::string boolean_text(bool value) {
    return value ? "true" : "false";
}

}  // namespace

TraceFields scenario_fields(const Scenario& scenario) {
    const auto& trainer = scenario.trainer;
    const auto& callbacks = scenario.callbacks;
    const CallbackOptions defaults;
    TraceFields fields;
    if (!scenario.buggify.empty()) {
        fields.raw("buggify", array_text(scenario.buggify, [](std::string& text, const std::string& name) {
                       append_json_string(text, name);
                   }));
    }
    fields.boolean("checkpoint_fsync", trainer.checkpoint_fsync);
    if (callbacks.early_stopping_callback != defaults.early_stopping_callback) {
        fields.string("early_stopping_callback",
                      kEarlyStoppingCallbackKindNames.name(callbacks.early_stopping_callback));
    }
    fields.integer("early_stopping_callbacks", callbacks.early_stopping_callbacks);
    if (callbacks.early_stopping_mixed_keys) {
        fields.boolean("early_stopping_mixed_keys", true);
    }
    fields.integer("early_stopping_patience", callbacks.early_stopping_patience)
        .boolean("early_stopping_state_keys", callbacks.early_stopping_state_keys);
    if (callbacks.early_stopping_threshold != defaults.early_stopping_threshold) {
        fields.number("early_stopping_threshold", callbacks.early_stopping_threshold);
    }
    fields.integer_or_null("eval_steps", trainer.eval_steps)
        .string("eval_strategy", kEvalStrategyNames.name(trainer.eval_strategy));
    std::string faults = "[";
    for (std::size_t i = 0; i < scenario.faults.size(); ++i) {
        if (i > 0) {
            faults += ',';
        }
        append_fault(faults, scenario.faults[i]);
    }
    faults += ']';
    fields.raw("faults", faults)
        .raw("gate_steps", array_text(callbacks.gate_steps, [](std::string& text, std::int64_t step) {
                 append_json_integer(text, step);
             }));
    if (trainer.gradient_overflows) {
        fields.boolean("gradient_overflows", true);
    }
    fields
        .raw("greater_is_better",
             trainer.greater_is_better ? boolean_text(*trainer.greater_is_better) : "null")
        .boolean("load_best_model_at_end", trainer.load_best_model_at_end)
        .integer("logging_steps", trainer.logging_steps);
    if (trainer.max_grad_norm != TrainerOptions{}.max_grad_norm) {
        fields.number("max_grad_norm", trainer.max_grad_norm);
    }
    fields.integer("max_steps", trainer.max_steps);
    if (trainer.metric_for_best_model.empty()) {
        fields.null("metric_for_best_model");
    } else {
        fields.string("metric_for_best_model", trainer.metric_for_best_model);
    }
    if (scenario.job.nodes != JobOptions{}.nodes) {
        fields.integer("nodes", scenario.job.nodes);
    }
    fields.raw("policy", policy_text(callbacks.policy))
        .boolean("protect_best_in_rotation", trainer.protect_best_in_rotation)
        .integer("ranks", scenario.job.ranks)
        .integer_or_null("regular_steps", callbacks.regular_steps)
        .boolean("restore_callback_states_from_checkpoint", trainer.restore_callback_states_from_checkpoint)
        .string("restored_callbacks_position",
                kRestoredCallbacksPositionNames.name(trainer.restored_callbacks_position));
    if (callbacks.resume_change.any()) {
        fields.raw("resume_change", resume_change_text(callbacks.resume_change));
    }
    std::string seed;
    append_json_unsigned(seed, scenario.seed);
    fields.string("resume_from_checkpoint", kResumeArgumentNames.name(trainer.resume_from_checkpoint))
        .string("resume_rule", kResumeRuleNames.name(trainer.resume_rule))
        .string("rotation_order", kRotationOrderNames.name(trainer.rotation_order));
    if (trainer.save_on_each_node) {
        fields.boolean("save_on_each_node", true);
    }
    if (trainer.save_only_model) {
        fields.boolean("save_only_model", true);
    }
    if (!trainer.save_safetensors) {
        fields.boolean("save_safetensors", false);
    }
    fields.integer("save_steps", trainer.save_steps)
        .string("save_strategy", kSaveStrategyNames.name(trainer.save_strategy))
        .integer("save_total_limit", trainer.save_total_limit)
        .raw("score", score_text(scenario.score))
        .raw("seed", seed)
        .string("stateful_callbacks_refresh",
                kStatefulCallbacksRefreshNames.name(trainer.stateful_callbacks_refresh))
        .integer("steps_per_epoch", trainer.steps_per_epoch)
        .string("stop_test", kStopTestNames.name(trainer.stop_test));
    if (trainer.transformers_release != TrainerOptions{}.transformers_release) {
        fields.string("transformers_release", kTransformersReleaseNames.name(trainer.transformers_release));
    }
    if (callbacks.upgraded_across_resume) {
        fields.boolean("upgraded_across_resume", true);
    }
    fields.boolean("watchdog", scenario.job.watchdog).integer("weights_shards", trainer.weights_shards);
    return fields;
}

}  // namespace ckpt::sim
