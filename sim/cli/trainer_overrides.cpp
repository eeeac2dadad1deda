// The trainer overrides' flags: enum flags accept exactly the names of their scenario field's
// table (scenario.hpp), so the command line and the scenario file spell values alike.
#include "sim/cli/trainer_overrides.hpp"

#include "sim/cli/numeric_flags.hpp"

namespace ckpt::cli {
namespace {

template <typename Enum, std::size_t N>
std::vector<std::string> names_of(const sim::EnumNames<Enum, N>& names) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < N; ++i) {
        out.emplace_back(names.name(static_cast<Enum>(i)));
    }
    return out;
}

template <typename Enum, std::size_t N>
Enum parsed(const sim::EnumNames<Enum, N>& names, const std::optional<std::string>& text) {
    return *names.parse(*text);  // checked by CLI::IsMember when parsed
}

}  // namespace

void TrainerOverrides::add_to(CLI::App* command) {
    command->add_option("--restore-callback-states-from-checkpoint", restore_callback_states_from_checkpoint,
                        "Override TrainingArguments.restore_callback_states_from_checkpoint (true|false)");
    command->add_option("--checkpoint-fsync", checkpoint_fsync,
                        "Override whether the checkpoint writer fsyncs (true|false; Transformers: false)");
    command->add_option("--stop-test", stop_test, "Override where the loop tests the stop")
        ->check(CLI::IsMember(names_of(sim::kStopTestNames)));
    command
        ->add_option("--resume-from-checkpoint", resume_from_checkpoint,
                     "Override what the launcher passes to train(resume_from_checkpoint=...)")
        ->check(CLI::IsMember(names_of(sim::kResumeArgumentNames)));
    command->add_option("--resume-rule", resume_rule, "Override the resume rule")
        ->check(CLI::IsMember(names_of(sim::kResumeRuleNames)));
    command->add_option("--rotation-order", rotation_order, "Override _rotate_checkpoints' order (use_mtime)")
        ->check(CLI::IsMember(names_of(sim::kRotationOrderNames)));
    command
        ->add_option("--transformers-release", transformers_release,
                     "Override the Transformers release the trainer follows where releases differ")
        ->check(CLI::IsMember(names_of(sim::kTransformersReleaseNames)));
    command
        ->add_option("--stateful-callbacks-refresh", stateful_callbacks_refresh,
                     "Override how several callbacks of one class are refreshed in stateful_callbacks")
        ->check(CLI::IsMember(names_of(sim::kStatefulCallbacksRefreshNames)));
    command
        ->add_option("--restored-callbacks-position", restored_callbacks_position,
                     "Override where _load_callback_state puts the callbacks it restored")
        ->check(CLI::IsMember(names_of(sim::kRestoredCallbacksPositionNames)));
    command->add_option("--save-strategy", save_strategy, "Override TrainingArguments.save_strategy")
        ->check(CLI::IsMember(names_of(sim::kSaveStrategyNames)));
    command
        ->add_option("--metric-for-best-model", metric_for_best_model,
                     "Override TrainingArguments.metric_for_best_model (none|score|loss)")
        ->check(CLI::IsMember({"none", "score", "loss"}));
    command
        ->add_option("--greater-is-better", greater_is_better,
                     "Override TrainingArguments.greater_is_better (none|true|false)")
        ->check(CLI::IsMember({"none", "true", "false"}));
    command->add_option("--load-best-model-at-end", load_best_model_at_end,
                        "Override TrainingArguments.load_best_model_at_end (true|false)");
    command->add_option("--eval-strategy", eval_strategy, "Override TrainingArguments.eval_strategy")
        ->check(CLI::IsMember(names_of(sim::kEvalStrategyNames)));
    command->add_option("--eval-steps", eval_steps, "Override TrainingArguments.eval_steps")
        ->check(CLI::Range(std::int64_t{1}, sim::kMaxScenarioSteps));
    command->add_option("--logging-steps", logging_steps, "Override TrainingArguments.logging_steps")
        ->check(CLI::Range(std::int64_t{1}, sim::kMaxScenarioSteps));
    command
        ->add_option("--weights-shards", weights_shards,
                     "Override how many shards save_pretrained writes the weights in (1: model.safetensors)")
        ->check(CLI::Range(1, 8));
    command
        ->add_option(
            "--early-stopping-callback", early_stopping_callback,
            "Override which EarlyStoppingCallback runs, on every launch (transformers: Transformers' own, "
            "without state keys; port: the port's)")
        ->check(CLI::IsMember(names_of(sim::kEarlyStoppingCallbackKindNames)));
    command->add_option("--save-only-model", save_only_model,
                        "Override TrainingArguments.save_only_model (true|false)");
    command->add_option("--save-safetensors", save_safetensors,
                        "Override TrainingArguments.save_safetensors (true|false; false: pytorch_model.bin)");
    command->add_option("--save-on-each-node", save_on_each_node,
                        "Override TrainingArguments.save_on_each_node (true|false; with one node it changes "
                        "nothing)");
    command
        ->add_option("--max-grad-norm", max_grad_norm,
                     "Override TrainingArguments.max_grad_norm (0: no clipping, and no grad_norm logged)")
        ->check(finite_non_negative(1e6));
    command->add_option("--gradient-overflows", gradient_overflows,
                        "Override whether some steps' gradients overflow, logging a grad_norm of inf or nan "
                        "(true|false)");
    command
        ->add_option("--nodes", nodes,
                     "Override the number of nodes the ranks are split over, in scenarios whose ranks it "
                     "divides (others keep theirs)")
        ->check(CLI::Range(1, 8));  // the ranks' limit
}

bool TrainerOverrides::any() const noexcept {
    return restore_callback_states_from_checkpoint || checkpoint_fsync || stop_test ||
           resume_from_checkpoint || resume_rule || rotation_order || transformers_release ||
           stateful_callbacks_refresh || restored_callbacks_position || save_strategy ||
           metric_for_best_model || greater_is_better || load_best_model_at_end || eval_strategy ||
           eval_steps || logging_steps || weights_shards || early_stopping_callback || save_only_model ||
           save_safetensors || save_on_each_node || max_grad_norm || gradient_overflows || nodes;
}

void TrainerOverrides::apply(sim::Scenario& scenario) const {
    auto& trainer = scenario.trainer;
    if (restore_callback_states_from_checkpoint) {
        trainer.restore_callback_states_from_checkpoint = *restore_callback_states_from_checkpoint;
    }
    if (checkpoint_fsync) {
        trainer.checkpoint_fsync = *checkpoint_fsync;
    }
    if (stop_test) {
        trainer.stop_test = parsed(sim::kStopTestNames, stop_test);
    }
    if (resume_from_checkpoint) {
        trainer.resume_from_checkpoint = parsed(sim::kResumeArgumentNames, resume_from_checkpoint);
    }
    if (resume_rule) {
        trainer.resume_rule = parsed(sim::kResumeRuleNames, resume_rule);
    }
    if (rotation_order) {
        trainer.rotation_order = parsed(sim::kRotationOrderNames, rotation_order);
    }
    if (transformers_release) {
        trainer.transformers_release = parsed(sim::kTransformersReleaseNames, transformers_release);
    }
    if (stateful_callbacks_refresh) {
        trainer.stateful_callbacks_refresh =
            parsed(sim::kStatefulCallbacksRefreshNames, stateful_callbacks_refresh);
    }
    if (restored_callbacks_position) {
        trainer.restored_callbacks_position =
            parsed(sim::kRestoredCallbacksPositionNames, restored_callbacks_position);
    }
    apply_best_model_overrides(trainer);
    if (early_stopping_callback) {
        auto& callbacks = scenario.callbacks;
        callbacks.early_stopping_callback =
            parsed(sim::kEarlyStoppingCallbackKindNames, early_stopping_callback);
        callbacks.resume_change.early_stopping_callback.reset();
        if (callbacks.early_stopping_callback == sim::EarlyStoppingCallbackKind::transformers) {
            callbacks.early_stopping_state_keys = false;  // Lightning's keys are the port's
            callbacks.early_stopping_mixed_keys = false;
        }
    }
    if (nodes && scenario.job.ranks % *nodes == 0) {
        scenario.job.nodes = *nodes;
    }
}

void TrainerOverrides::apply_best_model_overrides(sim::TrainerOptions& trainer) const {
    if (save_strategy) {
        trainer.save_strategy = parsed(sim::kSaveStrategyNames, save_strategy);
    }
    if (metric_for_best_model) {
        trainer.metric_for_best_model = *metric_for_best_model == "none" ? "" : *metric_for_best_model;
    }
    if (greater_is_better) {
        trainer.greater_is_better =
            *greater_is_better == "none" ? std::nullopt : std::optional<bool>(*greater_is_better == "true");
    }
    if (load_best_model_at_end) {
        trainer.load_best_model_at_end = *load_best_model_at_end;
    }
    if (eval_strategy) {
        trainer.eval_strategy = parsed(sim::kEvalStrategyNames, eval_strategy);
    }
    if (eval_steps) {
        trainer.eval_steps = *eval_steps;
    }
    if (logging_steps) {
        trainer.logging_steps = *logging_steps;
    }
    if (weights_shards) {
        trainer.weights_shards = *weights_shards;
    }
    if (save_only_model) {
        trainer.save_only_model = *save_only_model;
    }
    if (save_safetensors) {
        trainer.save_safetensors = *save_safetensors;
    }
    if (save_on_each_node) {
        trainer.save_on_each_node = *save_on_each_node;
    }
    if (max_grad_norm) {
        trainer.max_grad_norm = *max_grad_norm;
    }
    if (gradient_overflows) {
        trainer.gradient_overflows = *gradient_overflows;
    }
}

nlohmann::json TrainerOverrides::to_json() const {
    nlohmann::json out = nlohmann::json::object();
    const auto put = [&](const char* flag, const auto& value) {
        if (value) {
            out[flag] = *value;
        }
    };
    put("restore-callback-states-from-checkpoint", restore_callback_states_from_checkpoint);
    put("checkpoint-fsync", checkpoint_fsync);
    put("stop-test", stop_test);
    put("resume-from-checkpoint", resume_from_checkpoint);
    put("resume-rule", resume_rule);
    put("rotation-order", rotation_order);
    put("transformers-release", transformers_release);
    put("stateful-callbacks-refresh", stateful_callbacks_refresh);
    put("restored-callbacks-position", restored_callbacks_position);
    put("save-strategy", save_strategy);
    put("metric-for-best-model", metric_for_best_model);
    put("greater-is-better", greater_is_better);
    put("load-best-model-at-end", load_best_model_at_end);
    put("eval-strategy", eval_strategy);
    put("eval-steps", eval_steps);
    put("logging-steps", logging_steps);
    put("weights-shards", weights_shards);
    put("early-stopping-callback", early_stopping_callback);
    put("save-only-model", save_only_model);
    put("save-safetensors", save_safetensors);
    put("save-on-each-node", save_on_each_node);
    put("max-grad-norm", max_grad_norm);
    put("gradient-overflows", gradient_overflows);
    put("nodes", nodes);
    return out;
}

}  // namespace ckpt::cli
