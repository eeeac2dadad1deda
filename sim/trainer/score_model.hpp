// The simulated evaluator's scores: a pure function of (seed, step, incarnation), so the same
// step scores the same however ranks are scheduled, and a replay scores identically. Depends
// on sim/scenario and sim/base.
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
    explicit ScoreModel(const Scenario& scenario);

    // The score of an evaluation at `step` in job incarnation `incarnation` (0 = first run).
    double score(std::int64_t step, int incarnation) const noexcept;
    // The step-zero reference score for the external baseline.
    double baseline() const noexcept { return base(0); }

  private:
    double base(std::int64_t step) const noexcept;

    ScoreModelConfig config_;
    std::uint64_t seed_;
    // Random walks are laid out once per scenario: a prefix sum indexed by step.
    std::vector<double> walk_;
    // Every step the schedule evaluates at, ascending: a script's n-th score belongs to the n-th.
    std::vector<std::int64_t> evaluation_steps_;
};

}  // namespace ckpt::sim
