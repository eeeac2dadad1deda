// The simulated evaluator's scores: a pure function of (seed, step, incarnation), so the same
// step scores the same however ranks are scheduled, and a replay scores identically. Its memory
// follows the steps a run reaches, never max_steps. Depends on sim/scenario and sim/base.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

// The in-memory evaluator's scores. A score is a pure function of (seed, step, incarnation),
// never of how far a random stream has been drawn, so the same step scores the same however
// the ranks were scheduled, and a replay of a scenario scores identically.
class ScoreModel {
  public:
    // Steps between two kept values of a random walk.
    static constexpr std::int64_t kWalkStride = 1024;

    explicit ScoreModel(const Scenario& scenario);

    // The score of an evaluation at `step` in job incarnation `incarnation` (0 = first run).
    double score(std::int64_t step, int incarnation) const;
    // The step-zero reference score for the external baseline.
    double baseline() const { return base(0); }
    // How many walk values are kept: one per kWalkStride steps up to the furthest step asked.
    std::size_t kept_walk_values() const noexcept { return walk_marks_.size(); }

  private:
    double base(std::int64_t step) const;
    double walk(std::int64_t step) const;
    std::size_t scheduled_evaluations_before(std::int64_t step) const noexcept;

    ScoreModelConfig config_;
    std::uint64_t seed_;
    std::int64_t max_steps_;
    // A random walk is a running sum over the steps. Its value at every kWalkStride-th step is
    // kept once reached, and the last value asked for is kept too, so a run that evaluates in
    // ascending order adds each step once; a jump back restarts from the mark below it. The
    // sums are the same additions in the same order as one pass from step 0, so the scores are.
    mutable std::vector<double> walk_marks_;
    mutable std::int64_t cursor_step_ = -1;
    mutable double cursor_value_ = 0.0;
    // The scripted schedule (a script's n-th score belongs to the n-th evaluation step) is the
    // save cadence, the regular steps, and these: the gate steps and max_steps off both grids.
    std::int64_t cadence_ = 1;
    std::int64_t regular_ = 0;  // 0: no regular steps
    std::int64_t both_ = 0;     // the least common multiple of cadence_ and regular_
    std::vector<std::int64_t> off_grid_steps_;
};

}  // namespace ckpt::sim
