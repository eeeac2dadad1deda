// The round of evaluation_round.hpp. The order of the steps is the contract the simulator
// traces and checks; both envelopes are rank_zero_outcome.hpp's.
#include "policy/trigger/evaluation_round.hpp"

#include <nlohmann/json.hpp>

#include "policy/base/json_object.hpp"
#include "policy/base/mutants.hpp"
#include "policy/ports/rank_zero_outcome.hpp"
#include "policy/trigger/apply_decision.hpp"

namespace ckpt {

using nlohmann::json;

namespace {

// Bare names: the shared outcome prefixes "checkpoint evaluation " to every operation.
constexpr const char* kDecisionOperation = "decision";
constexpr const char* kPersistOperation = "persist";

// A lower score has no checkpoint to live in: persist it now, inside a rank-zero envelope of
// its own, so an I/O error fails every rank alike.
void persist_lower_score(Collective& collective, TriggerCallback& trigger,
                         EvaluationRoundObserver& observer) {
    const bool is_rank_zero = collective.rank() == 0;
    observer.before_rank_zero_outcome(kPersistOperation);
    run_on_rank_zero_and_share_outcome(collective, is_rank_zero, kPersistOperation, [&]() -> json {
        if (!mutants::is_active(mutants::Mutant::persist_reported_not_done)) {
            trigger.persist();
        }
        return json::object();
    });
    if (is_rank_zero) {
        observer.after_persist(trigger.policy().state());
    }
}

// The planted bugs that drop a persist the durability contract requires (mutants.hpp).
bool persist_skipped_by_mutant(const CheckpointEvaluationDecision& decision) noexcept {
    using mutants::Mutant;
    const bool lower = !decision.should_stop && decision.lower_score_streak > 0;
    return (mutants::is_active(Mutant::lower_score_not_persisted) && lower) ||
           (mutants::is_active(Mutant::streak_persist_skipped) && lower && decision.lower_score_streak > 1) ||
           (mutants::is_active(Mutant::stop_not_persisted) && decision.should_stop) ||
           (mutants::is_active(Mutant::tie_stop_not_persisted) &&
            decision.reason == DecisionReason::tie_stop);
}

}  // namespace

CheckpointEvaluationDecision run_checkpoint_evaluation_round(Collective& collective, TriggerCallback& trigger,
                                                             TrainerControl& control, double score,
                                                             std::int64_t step,
                                                             EvaluationRoundObserver& hooks) {
    EvaluationRoundObserver deleted;
    auto& observer = mutants::observer_calls_deleted() ? deleted : hooks;
    const bool is_rank_zero = collective.rank() == 0;
    auto& policy = trigger.policy();
    const auto prior = policy.state();
    // The decision is made on rank 0 and shared, error included, so no rank waits on a rank 0
    // that raised.
    observer.before_rank_zero_outcome(kDecisionOperation);
    const auto shared =
        run_on_rank_zero_and_share_outcome(collective, is_rank_zero, kDecisionOperation, [&]() -> json {
            if (mutants::is_active(mutants::Mutant::prior_streak_short_by_one) &&
                policy.state().lower_score_streak > 0) {
                auto tampered = policy.state_dict();
                tampered["state"]["lower_score_streak"] = policy.state().lower_score_streak - 1;
                policy.load_state_dict(tampered);
            }
            const auto decision = policy.observe(score, step);
            return JsonObject()
                .add("decision", decision.to_dict())
                .add("policy_state", policy.state_dict())
                .build();
        });
    const auto& received = *shared;
    const auto decision = CheckpointEvaluationDecision::from_dict(received.at("decision"));
    if (!is_rank_zero) {
        policy.load_state_dict(received.at("policy_state"));
    } else {
        observer.on_decision(prior, decision, policy.state());
    }
    observer.on_rank_state(policy.state());
    observer.before_apply(control);
    apply_checkpoint_evaluation_decision(control, decision);
    trigger.record_checkpoint_evaluation_decision(decision);
    if (decision.should_stop) {
        observer.on_stop_in_force();
    }
    observer.after_recorded(decision);
    if (!decision.should_save && !persist_skipped_by_mutant(decision)) {
        persist_lower_score(collective, trigger, observer);
    }
    return decision;
}

}  // namespace ckpt
