// Command-line overrides of the trainer's Transformers dimensions (issue 11), shared by `run`
// and `explore`: each flag is named after its scenario field, takes the scenario file's
// spelling, and a bad value is a CLI11 parse error naming the flag (exit status 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"

namespace ckpt::cli {

struct TrainerOverrides {
    std::optional<bool> restore_callback_states_from_checkpoint;
    std::optional<bool> checkpoint_fsync;
    std::optional<std::string> stop_test;
    std::optional<std::string> resume_from_checkpoint;
    std::optional<std::string> resume_rule;
    std::optional<std::string> rotation_order;
    std::optional<std::string> transformers_release;
    std::optional<std::string> stateful_callbacks_refresh;
    std::optional<std::string> restored_callbacks_position;
    std::optional<std::string> save_strategy;
    std::optional<std::string> metric_for_best_model;  // "none" clears it
    std::optional<std::string> greater_is_better;      // "none" is the post-init default
    std::optional<bool> load_best_model_at_end;
    std::optional<std::string> eval_strategy;
    std::optional<std::int64_t> eval_steps;
    std::optional<std::int64_t> logging_steps;
    std::optional<int> weights_shards;
    std::optional<std::string> early_stopping_callback;
    std::optional<bool> save_only_model;
    std::optional<bool> save_safetensors;
    std::optional<bool> save_on_each_node;
    std::optional<double> max_grad_norm;
    std::optional<bool> gradient_overflows;
    std::optional<int> nodes;  // applied where it divides the ranks

    void add_to(CLI::App* command);
    bool any() const noexcept;
    // The overrides given, by flag name without the dashes ({} when none), for explore --json.
    nlohmann::json to_json() const;
    // Overwrites the drawn fields it names; the values were checked when parsed.
    void apply(sim::Scenario& scenario) const;

  private:
    void apply_best_model_overrides(sim::TrainerOptions& trainer) const;
};

}  // namespace ckpt::cli
