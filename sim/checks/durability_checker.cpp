// P2 and P9 over the ledger's record of the durable sidecar; the round trip uses the policy's
// own loader on purpose (P9 is about the policy's format).
#include "sim/checks/durability_checker.hpp"

#include <algorithm>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

void DurabilityChecker::on(const SidecarPersisted& e) {
    // Read once, by the ledger writer, which sees every event before the checkers.
    const auto& sidecar = context_.ledger.sidecar_after_write;
    if (!sidecar.has_policy_state) {
        context_.violate(Property::P2, "persist returned but the durable sidecar is " +
                                           (sidecar.bytes ? "unreadable: " + sidecar.bytes->substr(0, 60)
                                                          : std::string("missing")));
        return;
    }
    if (!sidecar.state || *sidecar.state != e.state) {
        context_.violate(Property::P2,
                         "persist returned with " + describe(e.state) + " but the durable sidecar holds " +
                             (sidecar.state ? describe(*sidecar.state) : std::string("no state")));
        return;
    }
    // P9: the bytes on disk load into a policy that writes the same mapping back.
    try {
        const auto reloaded =
            CheckpointEvaluationPolicy::from_state_dict(sidecar.policy_state()).state_dict();
        if (reloaded != sidecar.policy_state()) {
            context_.violate(Property::P9, "sidecar state does not round-trip: " +
                                               sidecar.policy_state().dump() + " vs " + reloaded.dump());
        }
    } catch (const std::exception& error) {
        context_.violate(Property::P9, std::string("sidecar state does not load: ") + error.what());
    }
}

void DurabilityChecker::on(const TrainBegan& e) {
    const auto floor = expected_floor(context_.fs, context_.ledger);
    if (!e.resumed && floor.evaluation_count <= 0) {
        return;
    }
    const auto& decided = context_.ledger.decided_states;
    if (e.restored.evaluation_count < floor.evaluation_count) {
        context_.violate(Property::P2, "resume restored " + describe(e.restored) +
                                           " but a later decision was durable: " + describe(floor));
    } else if (e.restored.evaluation_count > 0 &&
               std::find(decided.begin(), decided.end(), e.restored) == decided.end()) {
        context_.violate(Property::P2, "resume restored " + describe(e.restored) +
                                           ", which is not the state after any decision of this run");
    }
}

}  // namespace ckpt::sim
