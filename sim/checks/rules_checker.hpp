// P11, P12 and P7 over what each rank's trigger callback hands back to the trainer: when
// on_evaluate returns, the control requests a save exactly when the ledger's decision saves (or
// the flag was already set), and the stop exactly when it stops. On rank 0 a wrong save breaks
// the rules (P11) and a wrong stop liveness, both ways (P12: stopped before patience ran out, or
// patience ran out and the run was not stopped); another rank acting otherwise acts on a
// decision that is not the job's (P7). The ledger decides from the score it fed and its own
// prior, never the policy's.
#pragma once

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RulesChecker {
  public:
    explicit RulesChecker(const CheckerContext& context) : context_(context) {}

    void on(const EvaluationReturned& e);
    void on(const auto&) noexcept {}

  private:
    const CheckerContext& context_;
};

}  // namespace ckpt::sim
