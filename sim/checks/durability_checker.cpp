// P2 and P9 over the ledger's record of the durable sidecar; P9's ground truth is the
// checker's own writer (sidecar_oracle_format.hpp) and reader (disk_truth.hpp).
#include "sim/checks/durability_checker.hpp"

#include <algorithm>
#include <optional>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"
#include "sim/checks/sidecar_oracle_format.hpp"

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
        // P9 is judged as well: the bytes are still compared with the seed's layout.
    }
    // P9: the durable bytes are exactly what the checker's own writer lays out for the state the
    // write returned with (already read back by the checker's own reader above, as P2). The
    // ledger does not know last_evaluated_step, so it is taken from the bytes.
    const auto last = sidecar.payload.find("last_evaluated_step");
    const auto last_step = last != sidecar.payload.end() && last->is_number_integer()
                               ? std::optional<std::int64_t>(last->get<std::int64_t>())
                               : std::nullopt;
    const auto expected = oracle_sidecar_text(context_.scenario.callbacks.policy, e.state, last_step);
    if (*sidecar.bytes != expected) {
        context_.violate(Property::P9, "sidecar bytes are not the seed's layout for " + describe(e.state) +
                                           ": " + first_line_difference(*sidecar.bytes, expected));
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
    // decision of this run produced, on any branch of its history (a resume to an older
    // checkpoint starts a new branch, but the old branch's records may still be on disk).
    const auto& decided = ledger.evaluations;
    if (e.restored.evaluation_count > 0 &&
        std::none_of(decided.begin(), decided.end(),
                     [&](const auto& node) { return node.after == e.restored; })) {
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
