// P10: every stateful callback restores to its state at the checkpoint, without warnings.
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class CallbacksChecker {
  public:
    explicit CallbacksChecker(const CheckerContext& context) : context_(context) {}

    void on(const CallbacksRestored& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
