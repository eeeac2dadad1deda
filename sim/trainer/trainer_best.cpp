// _determine_best_metric's comparison and the trainer_state.json fields it fills.
#include "sim/trainer/trainer_best.hpp"

namespace ckpt::sim {

using nlohmann::json;

double reported_metric(const std::string& metric, double score) noexcept {
    return metric == "loss" ? -score : score;
}

bool TrainerBest::determine_best_metric(const TrainerOptions& trainer, double score, std::int64_t step) {
    const auto metric = trainer.tracked_metric();
    if (metric.empty()) {
        return false;
    }
    const double value = reported_metric(metric, score);
    const bool greater = trainer.tracked_greater_is_better();
    // np.greater / np.less against ±inf: the first finite value is always a new best.
    const bool is_new_best = !best_metric || (greater ? value > *best_metric : value < *best_metric);
    if (is_new_best) {
        best_metric = value;
        if (trainer.tracks_best_global_step()) {
            best_global_step = step;
        }
    }
    return is_new_best;
}

TrainerBest TrainerBest::from_trainer_state(const json& state) {
    TrainerBest best;
    if (const auto it = state.find("best_metric"); it != state.end() && it->is_number()) {
        best.best_metric = it->get<double>();
    }
    if (const auto it = state.find("best_global_step"); it != state.end() && it->is_number_integer()) {
        best.best_global_step = it->get<std::int64_t>();
    }
    if (const auto it = state.find("best_model_checkpoint"); it != state.end() && it->is_string()) {
        best.best_model_checkpoint = it->get<std::string>();
    }
    return best;
}

void TrainerBest::write_to(json& state) const {
    state["best_metric"] = best_metric ? json(*best_metric) : json(nullptr);
    state["best_global_step"] = best_global_step ? json(*best_global_step) : json(nullptr);
    state["best_model_checkpoint"] = best_model_checkpoint ? json(*best_model_checkpoint) : json(nullptr);
}

}  // namespace ckpt::sim
