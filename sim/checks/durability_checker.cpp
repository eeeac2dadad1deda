// P2 and P9 over the ledger's record of the durable sidecar; the round trip uses the policy's
// own loader on purpose (P9 is about the policy's format).
#include "sim/checks/durability_checker.hpp"

#include <algorithm>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"

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
    const auto& ledger = context_.ledger;
    counted_twice_reported_ = false;
    if (ledger.expected_node) {
        compare_with_expected(e.restored, ledger.expected_state, "resume restored ");
        return;
    }
    // The checkpoint read is not one the ledger recorded: the state must at least be one a
    // decision of this run produced.
    const auto& decided = ledger.decided_states;
    if (e.restored.evaluation_count > 0 &&
        std::find(decided.begin(), decided.end(), e.restored) == decided.end()) {
        context_.violate(Property::P2, "resume restored " + describe(e.restored) +
                                           ", which is not the state after any decision of this run");
    }
}

// The seed's baseline rule restated: a state without a best takes the baseline as an external
// best at step 0 with a fresh streak and no stop; a state with a best keeps it.
void DurabilityChecker::on(const BaselineEstablished& e) {
    const auto& ledger = context_.ledger;
    if (!ledger.expected_node) {
        return;
    }
    auto expected = ledger.expected_state;
    if (!expected.best_score) {
        expected.best_score = e.score;
        expected.best_step = 0;
        expected.lower_score_streak = 0;
        expected.stop_requested = false;
        expected.best_is_external = true;
    }
    compare_with_expected(e.state, expected, "after the external baseline the resume holds ");
}

void DurabilityChecker::on(const DecisionMade& e) {
    const auto& counted = context_.ledger.restored_counted_steps;
    if (!counted_twice_reported_ && std::binary_search(counted.begin(), counted.end(), e.step)) {
        context_.violate(Property::P2, "step " + std::to_string(e.step) +
                                           " was counted twice: the restored history had already counted it");
        counted_twice_reported_ = true;  // once per incarnation
    }
}

void DurabilityChecker::compare_with_expected(const CheckpointEvaluationState& restored,
                                              const CheckpointEvaluationState& expected, const char* when) {
    if (restored == expected) {
        return;
    }
    const bool lost = restored.evaluation_count < expected.evaluation_count;
    context_.violate(Property::P2, when + describe(restored) +
                                       (lost ? " while a later decision on its history was recorded: "
                                             : " but the newest decision recorded on its history is ") +
                                       describe(expected));
}

}  // namespace ckpt::sim
