// P3, as DESIGN.md states it; reads the state the ledger expects restored at each
// incarnation's start and the ledger's decisions, never the policy's. Reports each rank once
// per stop.
#include "sim/checks/stop_checker.hpp"

#include <algorithm>
#include <string>

namespace ckpt::sim {

void StopChecker::on(const IncarnationBegan& e) {
    // A recorded stop binds the new incarnation from its first step (the ledger writer judged
    // what it must restore before the checkers run).
    const bool durable_stop = context_.ledger.expected_state.stop_requested;
    stop_in_force_.assign(static_cast<std::size_t>(e.ranks), durable_stop ? 1 : 0);
    first_step_grace_.assign(static_cast<std::size_t>(e.ranks), 0);
    stepped_.assign(static_cast<std::size_t>(e.ranks), 0);
    last_step_.assign(static_cast<std::size_t>(e.ranks), e.resume_step.value_or(0));
    if (durable_stop) {
        grant_first_step_grace();
    }
}

void StopChecker::grant_first_step_grace() {
    if (context_.scenario.trainer.stop_test == StopTest::after_step) {
        for (std::size_t rank = 0; rank < first_step_grace_.size(); ++rank) {
            first_step_grace_[rank] = stepped_[rank] != 0 ? 0 : 1;
        }
    }
}

void StopChecker::report(int rank, const char* what) {
    stop_in_force_[static_cast<std::size_t>(rank)] = 0;  // report once per rank
    const auto step = last_step_[static_cast<std::size_t>(rank)];
    context_.violate(Property::P3, "rank " + std::to_string(rank) + what +
                                       " (its last finished step: global step " + std::to_string(step) + ")");
}

}  // namespace ckpt::sim
