// The package test's consumer: three evaluations through the installed policy, then its state
// round-tripped through the seed's JSON. Exits 0 only when the decisions are the documented ones.
#include <iostream>

#include "policy/core/checkpoint_evaluation_policy.hpp"

int main() {
    ckpt::PolicySettings settings;
    settings.patience = 1;
    ckpt::CheckpointEvaluationPolicy policy(settings);
    const bool first_saved = policy.observe(0.5, 10).should_save;
    const bool better_saved = policy.observe(0.7, 20).should_save;
    const auto lower = policy.observe(0.6, 30);
    const auto restored = ckpt::CheckpointEvaluationPolicy::from_state_dict(policy.state_dict());
    const bool ok = first_saved && better_saved && !lower.should_save && lower.should_stop &&
                    restored.state_dict() == policy.state_dict();
    std::cout << (ok ? "consumer: ok" : "consumer: unexpected decisions") << "\n";
    return ok ? 0 : 1;
}
