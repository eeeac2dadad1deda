// Scores from a stateless hash of their inputs, and the scheduled evaluation steps a scripted
// score list is matched against, counted rather than listed; no random stream is ever advanced.
#include "sim/trainer/score_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

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

// One step of the walk: a slight upward drift, so runs improve for a while before patience
// ends them.
double walk_increment(std::uint64_t seed, std::int64_t step) noexcept {
    return (hashed_unit(seed, static_cast<std::uint64_t>(step), 0) - 0.48) * 0.01;
}

}  // namespace

ScoreModel::ScoreModel(const Scenario& scenario)
    : config_(scenario.score),
      seed_(Rng(scenario.seed).derive("scores").seed()),
      max_steps_(scenario.trainer.max_steps) {
    const auto& s = scenario;
    // The steps a run evaluates at: save events (steps or epoch ends), gate and regular steps,
    // and max_steps. A resume evaluates at the same steps, so the n-th score stays the n-th.
    cadence_ =
        s.trainer.save_strategy == SaveStrategy::steps ? s.trainer.save_steps : s.trainer.steps_per_epoch;
    regular_ = s.callbacks.regular_steps.value_or(0);
    both_ = regular_ > 0 ? std::lcm(cadence_, regular_) : 0;
    const auto on_grid = [&](std::int64_t step) {
        return step >= 1 && step <= max_steps_ &&
               (step % cadence_ == 0 || (regular_ > 0 && step % regular_ == 0));
    };
    off_grid_steps_.assign(s.callbacks.gate_steps.begin(), s.callbacks.gate_steps.end());
    off_grid_steps_.push_back(max_steps_);
    std::erase_if(off_grid_steps_, on_grid);
    std::sort(off_grid_steps_.begin(), off_grid_steps_.end());
    off_grid_steps_.erase(std::unique(off_grid_steps_.begin(), off_grid_steps_.end()), off_grid_steps_.end());
}

// The scheduled steps below `step`: the grid's multiples by inclusion-exclusion, then the rest.
std::size_t ScoreModel::scheduled_evaluations_before(std::int64_t step) const noexcept {
    const std::int64_t bound = std::min(step - 1, max_steps_);
    std::int64_t count = 0;
    if (bound >= 1) {
        count += bound / cadence_;
        if (regular_ > 0) {
            count += bound / regular_ - bound / both_;
        }
    }
    count += std::lower_bound(off_grid_steps_.begin(), off_grid_steps_.end(), step) - off_grid_steps_.begin();
    return static_cast<std::size_t>(count);
}

double ScoreModel::walk(std::int64_t step) const {
    const std::int64_t target = std::clamp<std::int64_t>(step, 0, max_steps_);
    if (walk_marks_.empty()) {
        walk_marks_.push_back(0.3 + walk_increment(seed_, 0));
    }
    // Marks up to the one at or below the target, each laid from the one before.
    const auto mark = static_cast<std::size_t>(target / kWalkStride);
    while (walk_marks_.size() <= mark) {
        const auto from = static_cast<std::int64_t>(walk_marks_.size() - 1) * kWalkStride;
        double value = walk_marks_.back();
        for (std::int64_t at = from + 1; at <= from + kWalkStride; ++at) {
            value += walk_increment(seed_, at);
        }
        walk_marks_.push_back(value);
    }
    const std::int64_t mark_step = static_cast<std::int64_t>(mark) * kWalkStride;
    const bool from_cursor = cursor_step_ >= mark_step && cursor_step_ <= target;
    std::int64_t at = from_cursor ? cursor_step_ : mark_step;
    double value = from_cursor ? cursor_value_ : walk_marks_[mark];
    while (at < target) {
        value += walk_increment(seed_, ++at);
    }
    cursor_step_ = target;
    cursor_value_ = value;
    return value;
}

double ScoreModel::base(std::int64_t step) const {
    switch (config_.kind) {
        case ScoreKind::scripted:
            return config_.script[scheduled_evaluations_before(step) % config_.script.size()];
        case ScoreKind::random_walk:
            return walk(step);
        case ScoreKind::quantised:
            return quantise(walk(step), 0.02);
        case ScoreKind::improve_then_plateau: {
            const double rise = 1.0 - std::exp(-static_cast<double>(step) / 150.0);
            return quantise(0.8 * rise + 0.02 * hashed_unit(seed_, static_cast<std::size_t>(step), 1), 0.005);
        }
    }
    return 0.0;
}

double ScoreModel::score(std::int64_t step, int incarnation) const {
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
