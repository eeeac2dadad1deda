// Scenario files: the JSON form, read field by field so every error names its path
// ("faults[2].rank: ..."). Names come from the tables beside each enum (scenario.hpp) and, for the
// tie policy, from policy/core, so a name is spelled in exactly one place.
#include "sim/scenario/scenario.hpp"

#include <algorithm>
#include <type_traits>

#include "policy/core/tie_policy.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/scenario/scenario_field_reader.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// The tie policy's names belong to policy/core; a scenario file accepts them exactly as
// to_string spells them (no trimming or case folding, unlike the seed's parser).
std::optional<TiePolicy> parse_exact_tie_policy(std::string_view text) {
    for (std::size_t i = 0; i < enumerator_count<TiePolicy>(); ++i) {
        const auto policy = static_cast<TiePolicy>(i);
        if (to_string(policy) == text) {
            return policy;
        }
    }
    return std::nullopt;
}

std::string tie_policy_choices() {
    std::string out;
    for (std::size_t i = 0; i < enumerator_count<TiePolicy>(); ++i) {
        out += (out.empty() ? "" : ", ") + std::string(to_string(static_cast<TiePolicy>(i)));
    }
    return out;
}

using scenario_json::bad_field;
using scenario_json::Reader;

constexpr std::int64_t kMaxSteps = kMaxScenarioSteps;
constexpr int kMaxWeightsShards = 8;

json fault_to_json(const PlannedFault& fault) {
    json out = {{"action", kFaultActionNames.name(fault.action)}};
    switch (fault.action) {
        case FaultAction::crash:
            out["point"] = to_string(fault.point);
            out["occurrence"] = fault.occurrence;
            out["scope"] = kCrashScopeNames.name(fault.scope);
            out["kind"] = kCrashKindNames.name(fault.kind);
            if (fault.kind == CrashKind::power_loss) {
                out["power_loss"] = kPowerLossModeNames.name(fault.power_loss);
            }
            if (fault.scope == CrashScope::rank) {
                out["rank"] = fault.rank;
            }
            if (fault.aim != FaultAim::none) {
                out["aim"] = kFaultAimNames.name(fault.aim);
            }
            break;
        case FaultAction::io_error:
            out["target"] = kIoTargetNames.name(fault.target);
            out["error"] = kFaultKindNames.name(fault.error);
            out["occurrence"] = fault.occurrence;
            break;
        case FaultAction::rank_death:
            out["rank"] = fault.rank;
            out["at_step"] = fault.at_step;
            if (fault.aim != FaultAim::none) {
                out["aim"] = kFaultAimNames.name(fault.aim);
            }
            break;
        case FaultAction::corrupt_sidecar:
        case FaultAction::corrupt_checkpoint:
        case FaultAction::preemption:
            out["at_step"] = fault.at_step;
            break;
    }
    return out;
}

PlannedFault fault_from_json(const json& document, const std::string& prefix) {
    const Reader r(document, prefix);
    r.reject_unknown({"action", "point", "occurrence", "scope", "kind", "power_loss", "rank", "at_step",
                      "target", "error", "aim"});
    if (r.find("action") == nullptr) {
        bad_field(r.path("action"), "is required");
    }
    PlannedFault fault;
    fault.action = r.choice("action", FaultAction::crash, kFaultActionNames);
    fault.point = r.choice("point", CrashPoint::step_end, kCrashPointNames);
    fault.occurrence = r.integer<std::uint32_t>("occurrence", 1, 1, 1'000'000);
    fault.scope = r.choice("scope", CrashScope::job, kCrashScopeNames);
    fault.kind = r.choice("kind", CrashKind::process_kill, kCrashKindNames);
    fault.power_loss = r.choice("power_loss", PowerLossMode::strict, kPowerLossModeNames);
    fault.rank = r.integer<int>("rank", 0, 0, kMaxRanks - 1);
    fault.at_step = r.integer<std::int64_t>("at_step", 0, 0, kMaxSteps);
    fault.target = r.choice("target", IoTarget::sidecar_write, kIoTargetNames);
    fault.error = r.choice("error", FaultKind::eio, kFaultKindNames, kFirstInjectedFaultKind);
    fault.aim = r.choice("aim", FaultAim::none, kFaultAimNames);
    return fault;
}

PolicySettings policy_from_json(const json& document) {
    const Reader p(document, "policy");
    p.reject_unknown({"patience", "tie_policy", "patience_start_step"});
    PolicySettings policy;
    policy.patience = p.integer<std::int64_t>("patience", 3, 1, 1'000'000);
    policy.tie_policy =
        p.choice_by("tie_policy", TiePolicy::reset, parse_exact_tie_policy, tie_policy_choices);
    policy.patience_start_step = p.integer<std::int64_t>("patience_start_step", 0, 0, kMaxSteps);
    return policy;
}

json policy_to_json(const PolicySettings& policy) {
    return {{"patience", policy.patience},
            {"tie_policy", to_string(policy.tie_policy)},
            {"patience_start_step", policy.patience_start_step}};
}

ResumeChange resume_change_from_json(const json& document) {
    const Reader r(document, "resume_change");
    r.reject_unknown({"policy", "early_stopping", "early_stopping_callback"});
    ResumeChange change;
    if (const auto* policy = r.find("policy")) {
        change.policy = policy_from_json(*policy);
    }
    if (const auto* order = r.find("early_stopping")) {
        if (!order->is_array() || order->size() > 4) {
            bad_field("resume_change.early_stopping", "must be a list of at most 4 identities");
        }
        change.early_stopping.emplace();
        for (const auto& id : *order) {
            if (!id.is_number_integer() || id.get<int>() < 0 || id.get<int>() > 4) {
                bad_field("resume_change.early_stopping", "must hold identities between 0 and 4");
            }
            change.early_stopping->push_back(id.get<int>());
        }
    }
    if (r.find("early_stopping_callback") != nullptr) {
        change.early_stopping_callback = r.choice("early_stopping_callback", EarlyStoppingCallbackKind::port,
                                                  kEarlyStoppingCallbackKindNames);
    }
    return change;
}

ScoreModelConfig score_from_json(const json& document) {
    const Reader sc(document, "score");
    sc.reject_unknown({"kind", "script", "noisy_replay", "external_baseline"});
    ScoreModelConfig score;
    score.kind = sc.choice("kind", ScoreKind::random_walk, kScoreKindNames);
    if (const auto* script = sc.find("script")) {
        if (!script->is_array()) {
            bad_field("score.script", "must be a list of numbers");
        }
        for (const auto& value : *script) {
            if (!value.is_number()) {
                bad_field("score.script", "must be a list of numbers");
            }
            score.script.push_back(value.get<double>());
        }
    }
    score.noisy_replay = sc.boolean("noisy_replay", false);
    score.external_baseline = sc.boolean("external_baseline", false);
    return score;
}

// metric_for_best_model (null, "score" or "loss"), greater_is_better (null or a boolean) and
// load_best_model_at_end; absent keys are Transformers' defaults, which the older model shared.
void read_best_model_options(const Reader& r, TrainerOptions& trainer) {
    if (const auto* metric = r.find("metric_for_best_model"); metric != nullptr && !metric->is_null()) {
        if (!metric->is_string() || (*metric != "score" && *metric != "loss")) {
            bad_field("metric_for_best_model", "must be null, \"score\" or \"loss\"");
        }
        trainer.metric_for_best_model = metric->get<std::string>();
    }
    if (const auto* greater = r.find("greater_is_better"); greater != nullptr && !greater->is_null()) {
        trainer.greater_is_better = r.boolean("greater_is_better", true);
    }
    trainer.load_best_model_at_end = r.boolean("load_best_model_at_end", false);
}

// eval_strategy, eval_steps (null is unset) and logging_steps; absent keys are Transformers'
// defaults, under which the older model ran no evaluation of its own.
void read_evaluation_options(const Reader& r, TrainerOptions& trainer) {
    trainer.eval_strategy = r.choice("eval_strategy", EvalStrategy::no, kEvalStrategyNames);
    if (const auto* steps = r.find("eval_steps"); steps != nullptr && !steps->is_null()) {
        trainer.eval_steps = r.integer<std::int64_t>("eval_steps", 1, 1, kMaxSteps);
    }
    trainer.logging_steps = r.integer<std::int64_t>("logging_steps", 500, 1, kMaxSteps);
    trainer.weights_shards = r.integer<int>("weights_shards", 1, 1, kMaxWeightsShards);
    trainer.save_only_model = r.boolean("save_only_model", false);
    trainer.save_on_each_node = r.boolean("save_on_each_node", false);
    trainer.save_safetensors = r.boolean("save_safetensors", true);
    // Any clipping threshold behaves alike here; the bound only refuses a typo.
    trainer.max_grad_norm = r.number("max_grad_norm", 0.0, 0.0, 1e6, "0 and 1000000");
    trainer.gradient_overflows = r.boolean("gradient_overflows", false);
}

}  // namespace

json Scenario::to_json() const {
    json faults_json = json::array();
    for (const auto& fault : faults) {
        faults_json.push_back(fault_to_json(fault));
    }
    json out = {
        {"seed", seed},
        {"ranks", job.ranks},
        {"max_steps", trainer.max_steps},
        {"steps_per_epoch", trainer.steps_per_epoch},
        {"save_strategy", kSaveStrategyNames.name(trainer.save_strategy)},
        {"save_steps", trainer.save_steps},
        {"gate_steps", callbacks.gate_steps},
        {"regular_steps", callbacks.regular_steps ? json(*callbacks.regular_steps) : json(nullptr)},
        {"policy", policy_to_json(callbacks.policy)},
        {"save_total_limit", trainer.save_total_limit},
        {"protect_best_in_rotation", trainer.protect_best_in_rotation},
        {"resume_rule", kResumeRuleNames.name(trainer.resume_rule)},
        {"restore_callback_states_from_checkpoint", trainer.restore_callback_states_from_checkpoint},
        {"checkpoint_fsync", trainer.checkpoint_fsync},
        {"stop_test", kStopTestNames.name(trainer.stop_test)},
        {"resume_from_checkpoint", kResumeArgumentNames.name(trainer.resume_from_checkpoint)},
        {"rotation_order", kRotationOrderNames.name(trainer.rotation_order)},
        {"stateful_callbacks_refresh",
         kStatefulCallbacksRefreshNames.name(trainer.stateful_callbacks_refresh)},
        {"restored_callbacks_position",
         kRestoredCallbacksPositionNames.name(trainer.restored_callbacks_position)},
        {"metric_for_best_model",
         trainer.metric_for_best_model.empty() ? json(nullptr) : json(trainer.metric_for_best_model)},
        {"greater_is_better", trainer.greater_is_better ? json(*trainer.greater_is_better) : json(nullptr)},
        {"load_best_model_at_end", trainer.load_best_model_at_end},
        {"eval_strategy", kEvalStrategyNames.name(trainer.eval_strategy)},
        {"eval_steps", trainer.eval_steps ? json(*trainer.eval_steps) : json(nullptr)},
        {"logging_steps", trainer.logging_steps},
        {"weights_shards", trainer.weights_shards},
        {"early_stopping_callbacks", callbacks.early_stopping_callbacks},
        {"early_stopping_state_keys", callbacks.early_stopping_state_keys},
        {"early_stopping_patience", callbacks.early_stopping_patience},
        {"score",
         {{"kind", kScoreKindNames.name(score.kind)},
          {"script", score.script},
          {"noisy_replay", score.noisy_replay},
          {"external_baseline", score.external_baseline}}},
        {"faults", faults_json},
        {"watchdog", job.watchdog},
    };
    // Written only when they differ from the default, so older scenario files keep their form.
    if (callbacks.early_stopping_patience != CallbackOptions{}.early_stopping_patience) {
        out["early_stopping_patience"] = callbacks.early_stopping_patience;
    }
    if (callbacks.early_stopping_threshold != CallbackOptions{}.early_stopping_threshold) {
        out["early_stopping_threshold"] = callbacks.early_stopping_threshold;
    }
    if (callbacks.early_stopping_mixed_keys) {
        out["early_stopping_mixed_keys"] = true;
    }
    if (callbacks.early_stopping_callback != CallbackOptions{}.early_stopping_callback) {
        out["early_stopping_callback"] =
            kEarlyStoppingCallbackKindNames.name(callbacks.early_stopping_callback);
    }
    if (callbacks.upgraded_across_resume) {
        out["upgraded_across_resume"] = true;
    }
    if (trainer.save_only_model) {
        out["save_only_model"] = true;
    }
    if (!trainer.save_safetensors) {
        out["save_safetensors"] = false;
    }
    if (trainer.max_grad_norm != TrainerOptions{}.max_grad_norm) {
        out["max_grad_norm"] = trainer.max_grad_norm;
    }
    if (trainer.gradient_overflows) {
        out["gradient_overflows"] = true;
    }
    if (trainer.transformers_release != TrainerOptions{}.transformers_release) {
        out["transformers_release"] = kTransformersReleaseNames.name(trainer.transformers_release);
    }
    if (trainer.save_on_each_node) {
        out["save_on_each_node"] = true;
    }
    if (job.nodes != JobOptions{}.nodes) {
        out["nodes"] = job.nodes;
    }
    if (callbacks.resume_change.any()) {
        auto& change = out["resume_change"] = json::object();
        if (callbacks.resume_change.policy) {
            change["policy"] = policy_to_json(*callbacks.resume_change.policy);
        }
        if (callbacks.resume_change.early_stopping) {
            change["early_stopping"] = *callbacks.resume_change.early_stopping;
        }
        if (callbacks.resume_change.early_stopping_callback) {
            change["early_stopping_callback"] =
                kEarlyStoppingCallbackKindNames.name(*callbacks.resume_change.early_stopping_callback);
        }
    }
    if (!buggify.empty()) {
        out["buggify"] = buggify;
    }
    return out;
}

Scenario Scenario::from_json(const json& document) {
    const Reader r(document, "");
    r.reject_unknown({"seed",
                      "ranks",
                      "max_steps",
                      "steps_per_epoch",
                      "save_strategy",
                      "save_steps",
                      "gate_steps",
                      "regular_steps",
                      "policy",
                      "save_total_limit",
                      "protect_best_in_rotation",
                      "resume_rule",
                      "restore_callback_states_from_checkpoint",
                      "checkpoint_fsync",
                      "stop_test",
                      "resume_from_checkpoint",
                      "rotation_order",
                      "transformers_release",
                      "stateful_callbacks_refresh",
                      "restored_callbacks_position",
                      "metric_for_best_model",
                      "greater_is_better",
                      "load_best_model_at_end",
                      "eval_strategy",
                      "eval_steps",
                      "logging_steps",
                      "weights_shards",
                      "save_only_model",
                      "save_safetensors",
                      "save_on_each_node",
                      "max_grad_norm",
                      "gradient_overflows",
                      "nodes",
                      "early_stopping_callbacks",
                      "early_stopping_state_keys",
                      "score",
                      "faults",
                      "watchdog",
                      "early_stopping_patience",
                      "early_stopping_threshold",
                      "early_stopping_mixed_keys",
                      "early_stopping_callback",
                      "upgraded_across_resume",
                      "resume_change",
                      "buggify"});
    if (r.find("seed") == nullptr) {
        bad_field("seed", "is required");
    }
    Scenario s;
    s.seed = r.integer<std::uint64_t>("seed", 0, 0, UINT64_MAX);
    s.job.ranks = r.integer<int>("ranks", 1, 1, kMaxRanks);
    s.job.nodes = r.integer<int>("nodes", 1, 1, kMaxRanks);
    s.trainer.max_steps = r.integer<std::int64_t>("max_steps", 500, 1, kMaxSteps);
    s.trainer.steps_per_epoch = r.integer<std::int64_t>("steps_per_epoch", 100, 1, kMaxSteps);
    s.trainer.save_strategy = r.choice("save_strategy", SaveStrategy::steps, kSaveStrategyNames);
    s.trainer.save_steps = r.integer<std::int64_t>("save_steps", 50, 1, kMaxSteps);
    if (const auto* gates = r.find("gate_steps")) {
        if (!gates->is_array()) {
            bad_field("gate_steps", "must be a list of positive integers");
        }
        for (const auto& step : *gates) {
            if (!step.is_number_integer() || step.get<std::int64_t>() < 1) {
                bad_field("gate_steps", "must be a list of positive integers");
            }
            s.callbacks.gate_steps.push_back(step.get<std::int64_t>());
        }
    }
    if (const auto* regular = r.find("regular_steps"); regular != nullptr && !regular->is_null()) {
        s.callbacks.regular_steps = r.integer<std::int64_t>("regular_steps", 0, 1, kMaxSteps);
    }
    if (const auto* policy = r.find("policy")) {
        s.callbacks.policy = policy_from_json(*policy);
    }
    s.trainer.save_total_limit = r.integer<std::int64_t>("save_total_limit", 1, 1, 1000);
    s.trainer.protect_best_in_rotation = r.boolean("protect_best_in_rotation", false);
    s.trainer.resume_rule = r.choice("resume_rule", ResumeRule::fixed, kResumeRuleNames);
    // Optional, with the older model as the default, so every earlier scenario file replays.
    s.trainer.restore_callback_states_from_checkpoint =
        r.boolean("restore_callback_states_from_checkpoint", true);
    s.trainer.checkpoint_fsync = r.boolean("checkpoint_fsync", true);
    s.trainer.stop_test = r.choice("stop_test", StopTest::before_step, kStopTestNames);
    s.trainer.resume_from_checkpoint =
        r.choice("resume_from_checkpoint", ResumeArgument::last_checkpoint_path, kResumeArgumentNames);
    s.trainer.rotation_order = r.choice("rotation_order", RotationOrder::step, kRotationOrderNames);
    s.trainer.transformers_release =
        r.choice("transformers_release", TransformersRelease::v4_57, kTransformersReleaseNames);
    s.trainer.stateful_callbacks_refresh = r.choice(
        "stateful_callbacks_refresh", StatefulCallbacksRefresh::replace, kStatefulCallbacksRefreshNames);
    s.trainer.restored_callbacks_position = r.choice(
        "restored_callbacks_position", RestoredCallbacksPosition::kept, kRestoredCallbacksPositionNames);
    read_best_model_options(r, s.trainer);
    read_evaluation_options(r, s.trainer);
    s.callbacks.early_stopping_callbacks = r.integer<int>("early_stopping_callbacks", 0, 0, 4);
    s.callbacks.early_stopping_state_keys = r.boolean("early_stopping_state_keys", false);
    s.callbacks.early_stopping_mixed_keys = r.boolean("early_stopping_mixed_keys", false);
    s.callbacks.early_stopping_callback =
        r.choice("early_stopping_callback", EarlyStoppingCallbackKind::port, kEarlyStoppingCallbackKindNames);
    s.callbacks.upgraded_across_resume = r.boolean("upgraded_across_resume", false);
    s.callbacks.early_stopping_patience = r.integer<int>("early_stopping_patience", 1000, 1, 1000000);
    if (const auto* score = r.find("score")) {
        s.score = score_from_json(*score);
    }
    if (const auto* faults = r.find("faults")) {
        if (!faults->is_array()) {
            bad_field("faults", "must be a list");
        }
        for (std::size_t i = 0; i < faults->size(); ++i) {
            s.faults.push_back(fault_from_json((*faults)[i], "faults[" + std::to_string(i) + "]"));
        }
    }
    s.job.watchdog = r.boolean("watchdog", true);
    s.callbacks.early_stopping_patience = r.integer<std::int64_t>(
        "early_stopping_patience", CallbackOptions{}.early_stopping_patience, 1, 1'000'000);
    s.callbacks.early_stopping_threshold =
        r.number("early_stopping_threshold", CallbackOptions{}.early_stopping_threshold, 0.0, 1.0, "0 and 1");
    if (const auto* change = r.find("resume_change")) {
        s.callbacks.resume_change = resume_change_from_json(*change);
    }
    if (const auto* switches = r.find("buggify")) {
        if (!switches->is_array()) {
            bad_field("buggify", "must be a list of names");
        }
        for (const auto& name : *switches) {
            if (!name.is_string()) {
                bad_field("buggify", "must be a list of names");
            }
            s.buggify.push_back(name.get<std::string>());
        }
    }
    s.validate();
    return s;
}

}  // namespace ckpt::sim
