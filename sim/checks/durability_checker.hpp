// P2 and P9: a sidecar write that returned is durable and round-trips; a resume restores the
// last durably recorded decision, nothing lost, nothing invented.
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class DurabilityChecker {
  public:
    explicit DurabilityChecker(const CheckerContext& context) : context_(context) {}

    void on(const SidecarPersisted& e);
    void on(const TrainBegan& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
