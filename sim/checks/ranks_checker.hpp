// P6 and P7: a rank-zero failure ends every rank with the same error and only a dead rank hangs
// a job; after every collective all live ranks hold the same policy state.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "policy/core/checkpoint_evaluation_state.hpp"
#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RanksChecker {
  public:
    explicit RanksChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan&) noexcept { agreement_.clear(); }
    void on(const RankStateShared& e);
    void on(const RanksEnded& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
    std::vector<std::pair<std::uint64_t, CheckpointEvaluationState>> agreement_;  // by sequence: first rank's
};

}  // namespace ckpt::sim
