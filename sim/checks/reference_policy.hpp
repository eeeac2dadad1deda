// The seed's decision rules restated plainly, for the P11 oracle. Shares no code with
// CheckpointEvaluationPolicy, so a slip in one is not a slip in both. Pure; uses policy/core
// only for its value types.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt::sim {

// The seed's decision rules restated as plainly as possible, for the P11 oracle. It shares no
// code with CheckpointEvaluationPolicy: a slip in the real policy must not also be a slip here.
struct ReferenceOutcome {
    CheckpointEvaluationState after;
    std::string_view reason;
    bool should_save = false;
    bool should_stop = false;
};

ReferenceOutcome reference_observe(const PolicySettings& settings, CheckpointEvaluationState state,
                                   double score, std::int64_t step);

// The rule for a resume under edited settings (docs/deliberate-differences.md, 13): the counts a
// checkpoint carries were judged under its settings, so a resume under other ones must refuse,
// naming each. Returns the names of the settings that differ; empty: the resume may proceed.
std::vector<std::string_view> reference_changed_settings(const PolicySettings& saved,
                                                         const PolicySettings& configured);

// The seed's consistency rules for a state, in the seed's order: the first rule `state` breaks
// (a non-finite best, a negative step or counter, a best or stop without a score, ...), or an
// empty view when it holds. A state that breaks one is refused by a load with a ValueError.
std::string_view reference_state_problem(const CheckpointEvaluationState& state);

// The seed's name for a tie policy, as its settings and state_dict spell it.
const char* reference_tie_policy_name(TiePolicy policy);

// An external (step-zero) baseline under the seed's rules: it becomes the best only while there
// is none, counts nothing, and marks the best as external.
CheckpointEvaluationState reference_baseline(CheckpointEvaluationState state, double score,
                                             std::int64_t step);

}  // namespace ckpt::sim
