// Transformers' own best-model tracking in TrainerState (best_metric, best_global_step,
// best_model_checkpoint), as _determine_best_metric and _save_checkpoint (v4.5x and v5) keep it:
// independent of the callback's policy, which tracks its own best. Pure values, no disk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct TrainerBest {
    std::optional<double> best_metric;
    std::optional<std::int64_t> best_global_step;
    std::optional<std::string> best_model_checkpoint;  // a path under the output directory

    // _determine_best_metric after an evaluation reporting `score` at `step`: a strict
    // improvement over best_metric (±inf at first) is a new best; best_global_step follows only
    // under save_strategy "steps" or "epoch" in v4.5x (so "best" never names a checkpoint), and
    // under "best" too in v5.
    // Returns whether the metric is a new best; no metric tracked returns false.
    bool determine_best_metric(const TrainerOptions& trainer, double score, std::int64_t step);

    // The three fields as TrainerState.load_from_json reads them (absent or null is None).
    static TrainerBest from_trainer_state(const nlohmann::json& state);
    void write_to(nlohmann::json& state) const;
};

// The metric the simulated evaluation reports under `metric` ("score" or "loss", the loss being
// the score's negation).
double reported_metric(const std::string& metric, double score) noexcept;

}  // namespace ckpt::sim
