#include "sim/trainer/score_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/base/rng.hpp"

namespace ckpt::sim {
namespace {

// A unit double from a hash of the inputs: a stateless random source.
double hashed_unit(std::uint64_t seed, std::uint64_t a, std::uint64_t b) noexcept {
    const auto mixed = mix64(seed ^ mix64(a + 0x9e3779b97f4a7c15ULL) ^ mix64(b * 0xbf58476d1ce4e5b9ULL + 1));
    return static_cast<double>(mixed >> 11) * 0x1.0p-53;
}

double quantise(double value, double grid) {
    return std::round(value / grid) * grid;
}

// The steps a run of `s` evaluates at: save events (steps or epoch ends), gate and regular
// steps, and max_steps. A resume evaluates at the same steps, so the n-th score stays the n-th.
std::vector<std::int64_t> scheduled_evaluation_steps(const Scenario& s) {
    std::vector<std::int64_t> steps(s.callbacks.gate_steps.begin(), s.callbacks.gate_steps.end());
    const std::int64_t cadence =
        s.trainer.save_strategy == SaveStrategy::steps ? s.trainer.save_steps : s.trainer.steps_per_epoch;
    for (std::int64_t step = cadence; step <= s.trainer.max_steps; step += cadence) {
        steps.push_back(step);
    }
    if (s.callbacks.regular_steps) {
        for (std::int64_t step = *s.callbacks.regular_steps; step <= s.trainer.max_steps;
             step += *s.callbacks.regular_steps) {
            steps.push_back(step);
        }
    }
    steps.push_back(s.trainer.max_steps);
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

}  // namespace

ScoreModel::ScoreModel(const Scenario& scenario)
    : config_(scenario.score), seed_(Rng(scenario.seed).derive("scores").seed()) {
    const auto max_steps = scenario.trainer.max_steps;
    if (config_.kind == ScoreKind::scripted) {
        evaluation_steps_ = scheduled_evaluation_steps(scenario);
    }
    if (config_.kind == ScoreKind::random_walk || config_.kind == ScoreKind::quantised) {
        walk_.resize(static_cast<std::size_t>(max_steps) + 1);
        double value = 0.3;
        for (std::size_t step = 0; step < walk_.size(); ++step) {
            // A slight upward drift, so runs improve for a while before patience ends them.
            value += (hashed_unit(seed_, step, 0) - 0.48) * 0.01;
            walk_[step] = value;
        }
    }
}

double ScoreModel::base(std::int64_t step) const noexcept {
    const auto index = static_cast<std::size_t>(step);
    switch (config_.kind) {
        case ScoreKind::scripted: {
            const auto position = std::lower_bound(evaluation_steps_.begin(), evaluation_steps_.end(), step) -
                                  evaluation_steps_.begin();
            return config_.script[static_cast<std::size_t>(position) % config_.script.size()];
        }
        case ScoreKind::random_walk:
            return walk_[std::min(index, walk_.size() - 1)];
        case ScoreKind::quantised:
            return quantise(walk_[std::min(index, walk_.size() - 1)], 0.02);
        case ScoreKind::improve_then_plateau: {
            const double rise = 1.0 - std::exp(-static_cast<double>(step) / 150.0);
            return quantise(0.8 * rise + 0.02 * hashed_unit(seed_, index, 1), 0.005);
        }
    }
    return 0.0;
}

double ScoreModel::score(std::int64_t step, int incarnation) const noexcept {
    const double value = base(step);
    if (!config_.noisy_replay || incarnation == 0) {
        return value;
    }
    // A step trained again sees other batches and dropout masks: perturb, then snap to the
    // model's grid so ties stay possible.
    const double noise =
        (hashed_unit(seed_, static_cast<std::uint64_t>(step), 2 + static_cast<std::uint64_t>(incarnation)) -
         0.5) *
        0.02;
    return quantise(value + noise, 0.005);
}

}  // namespace ckpt::sim
