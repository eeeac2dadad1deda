// RapidCheck generators for policy values: finite scores (ties, ordinary doubles, raw bit
// patterns), settings, and every state validate_state accepts, reachable by a run or not, so the
// format properties cover whatever a file may hold. Test-only; depends on policy/core.
#pragma once

#include <rapidcheck.h>

#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt::properties {

// Any finite double: values on the swarm's grid (ties), ordinary doubles, and raw bit patterns
// (subnormals, -0.0, the extremes), the last being where a lossy number format shows.
rc::Gen<double> gen_finite_score();

rc::Gen<PolicySettings> gen_policy_settings();

// A state CheckpointEvaluationPolicy::validate_state accepts, including ones no run of the
// policy would reach (a stop with an external best, huge counters): the formats must carry
// whatever a file may hold.
rc::Gen<CheckpointEvaluationState> gen_policy_state();

rc::Gen<CheckpointEvaluationPolicy> gen_policy();

}  // namespace ckpt::properties

namespace ckpt {

// For RapidCheck's report of a failing case (found by argument-dependent lookup).
inline void showValue(const CheckpointEvaluationPolicy& policy, std::ostream& os) {
    os << policy.state_dict().dump();
}

}  // namespace ckpt
