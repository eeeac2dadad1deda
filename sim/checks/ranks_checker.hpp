// P6: a rank-zero failure ends every rank with the same error, and only a dead rank hangs a job:
// the hung collective must wait on that rank, not merely share the incarnation with a death.
// (P7, that every rank acts on the job's decision, is judged from the flags each rank's
// on_evaluate hands back: rules_checker.hpp.)
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RanksChecker {
  public:
    explicit RanksChecker(const CheckerContext& context) : context_(context) {}

    void on(const RanksEnded& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
