// P11: every decision rank 0 makes follows the seed's rules, as reference_policy states them.
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RulesChecker {
  public:
    explicit RulesChecker(const CheckerContext& context) : context_(context) {}

    void on(const DecisionMade& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
