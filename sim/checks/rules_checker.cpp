// P11: compares each decision with reference_policy's restatement of the seed's rules.
// Reads nothing but the event.
#include "sim/checks/rules_checker.hpp"

#include <string>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/reference_policy.hpp"

namespace ckpt::sim {

void RulesChecker::on(const DecisionMade& e) {
    const auto expected = reference_observe(context_.scenario.callbacks.policy, e.prior, e.score, e.step);
    const auto& decision = e.decision;
    if (to_string(decision.reason) != expected.reason || decision.should_save != expected.should_save ||
        decision.should_stop != expected.should_stop || e.after != expected.after) {
        context_.violate(Property::P11, "at step " + std::to_string(e.step) + " score " +
                                            nlohmann::json(e.score).dump() + " from " + describe(e.prior) +
                                            " the policy decided " + std::string(to_string(decision.reason)) +
                                            " -> " + describe(e.after) + ", the rules say " +
                                            std::string(expected.reason) + " -> " + describe(expected.after));
    }
}

}  // namespace ckpt::sim
