// P12: a run finishes, or ends for a reason an injected fault explains (whether a stop was due
// is the rules checker's flags check). The simulation decides how a run ended; this checker
// turns the endings nothing explains into violations, and also the resume that silently
// accepted a sidecar the ledger knows was damaged (the seed fails loudly).
#pragma once

#include <optional>
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
    void on(const IncarnationBegan& e);
    void on(const TrainBegan& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
    bool damaged_sidecar_at_start_ = false;
};

}  // namespace ckpt::sim
