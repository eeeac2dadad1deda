// P2 and P9: a sidecar write that returned is durable and is the seed's layout byte for byte; a resume
// restores the full state of the newest decision recorded on the history it continues (lineage.hpp), both
// right after the restore and once the external baseline is offered; and no step the restored
// history counted is counted again.
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class DurabilityChecker {
  public:
    explicit DurabilityChecker(const CheckerContext& context) : context_(context) {}

    void on(const SidecarPersisted& e);
    void on(const TrainBegan& e);
    void on(const BaselineEstablished& e);
    void on(const DecisionMade& e);
    void on(const auto&) noexcept {}

  private:
    void compare_with_expected(const CheckpointEvaluationState& restored,
                               const CheckpointEvaluationState& expected, const char* when);

    const CheckerContext& context_;
    bool counted_twice_reported_ = false;
};

}  // namespace ckpt::sim
