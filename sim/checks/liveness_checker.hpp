// P12: a run finishes, or ends for a reason an injected fault explains. The simulation decides
// how a run ended; this checker turns the endings nothing explains into violations.
#pragma once

#include <string>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class LivenessChecker {
  public:
    explicit LivenessChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationLimitReached& e) {
        context_.violate(Property::P12,
                         "the job did not finish within " + std::to_string(e.limit) + " incarnations");
    }
    void on(const UnexplainedFailure& e) {
        context_.violate(Property::P12, "the job failed with no injected fault to explain it: " + e.error);
    }
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
