// The flags check of rules_checker.hpp. Reads the event's flags and the ledger only.
#include "sim/checks/rules_checker.hpp"

#include <string>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {

namespace {

const char* flag_text(bool on) {
    return on ? "true" : "false";
}

}  // namespace

void RulesChecker::on(const EvaluationReturned& e) {
    const auto& ledger = context_.ledger;
    const auto* found = decision_of_round(ledger, e.round);
    if (ledger.prior_unknown || found == nullptr) {
        return;
    }
    const auto& decision = *found;
    const bool saves = e.saves_before || decision.should_save;
    const bool stops = e.stops_before || decision.should_stop;
    if (e.saves == saves && e.stops == stops) {
        return;
    }
    // Another rank acting otherwise than the job's decision disagrees with it (P7); on rank 0 a
    // stop handed back when none is due, or none when one is, is P12's; a wrong save is P11's.
    const auto property = e.rank != 0 ? Property::P7 : e.stops != stops ? Property::P12 : Property::P11;
    context_.violate(property, "at step " + std::to_string(e.step) + " score " +
                                   nlohmann::json(decision.score).dump() + " rank " + std::to_string(e.rank) +
                                   "'s on_evaluate handed back should_save=" + flag_text(e.saves) +
                                   " should_training_stop=" + flag_text(e.stops) + ", the rules decide " +
                                   std::string(decision.reason) + " (should_save=" + flag_text(saves) +
                                   " should_training_stop=" + flag_text(stops) + ") from " +
                                   describe(decision.prior));
}

}  // namespace ckpt::sim
