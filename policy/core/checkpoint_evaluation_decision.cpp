// Decision reasons and the to_dict/from_dict wire form, coerced with the seed's Python rules;
// error messages list the required fields in the seed's order, word for word.
#include "policy/core/checkpoint_evaluation_decision.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "policy/base/errors.hpp"
#include "policy/base/json_members.hpp"
#include "policy/base/json_object.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {
namespace {

constexpr std::array<std::pair<DecisionReason, std::string_view>, 10> kReasonNames{{
    {DecisionReason::initial, "initial"},
    {DecisionReason::improved, "improved"},
    {DecisionReason::patience_warmup_lower, "patience_warmup_lower"},
    {DecisionReason::patience_warmup_tie, "patience_warmup_tie"},
    {DecisionReason::lower, "lower"},
    {DecisionReason::patience_exhausted, "patience_exhausted"},
    {DecisionReason::tie_reset, "tie_reset"},
    {DecisionReason::tie_stop, "tie_stop"},
    {DecisionReason::tie_counted, "tie_counted"},
    {DecisionReason::tie_ignored, "tie_ignored"},
}};

// Every member from_dict reads, in ascending order (find_members): the optional
// best_is_external, then the seed's required set, in the sorted order its error message lists them.
constexpr std::array<std::string_view, 10> kMembers{
    "best_is_external", "best_score", "best_step",   "evaluation_count", "lower_score_streak",
    "reason",           "score",      "should_save", "should_stop",      "step",
};
constexpr std::size_t kFirstRequired = 1;
static_assert(std::is_sorted(kMembers.begin(), kMembers.end()));

}  // namespace

std::string_view to_string(DecisionReason reason) {
    return kReasonNames[static_cast<std::size_t>(reason)].second;
}

DecisionReason parse_decision_reason(std::string_view name) {
    for (const auto& [reason, text] : kReasonNames) {
        if (text == name) {
            return reason;
        }
    }
    throw ValueError("checkpoint evaluation decision has an unknown reason: " +
                     python::repr(nlohmann::json(std::string(name))));
}

nlohmann::json CheckpointEvaluationDecision::to_dict() const {
    return JsonObject()
        .add("score", score)
        .add("step", step)
        .add("should_save", should_save)
        .add("should_stop", should_stop)
        .add("reason", to_string(reason))
        .add("best_score", best_score)
        .add("best_step", best_step)
        .add("lower_score_streak", lower_score_streak)
        .add("evaluation_count", evaluation_count)
        .add("best_is_external", best_is_external)
        .build();
}

CheckpointEvaluationDecision CheckpointEvaluationDecision::from_dict(const nlohmann::json& payload) {
    if (!payload.is_object()) {
        throw ValueError("checkpoint evaluation decision must be a mapping");
    }
    const auto values = find_members(payload, kMembers);
    std::string missing;
    for (std::size_t i = kFirstRequired; i < kMembers.size(); ++i) {
        if (values[i] == nullptr) {
            missing += (missing.empty() ? "'" : ", '") + std::string(kMembers[i]) + "'";
        }
    }
    if (!missing.empty()) {
        throw ValueError("checkpoint evaluation decision missing fields: [" + missing + "]");
    }
    // kMembers' order. The conversions run in the seed's order, so the first invalid field is the
    // one whose error is raised.
    const auto& [external, best_score, best_step, evaluation_count, lower_score_streak, reason, score,
                 should_save, should_stop, step] = values;
    CheckpointEvaluationDecision decision;
    decision.score = python::to_float(*score);
    decision.step = python::to_int(*step);
    decision.should_save = python::truthy(*should_save);
    decision.should_stop = python::truthy(*should_stop);
    // A string names its reason as it is; str() of anything else is its repr.
    decision.reason = reason->is_string() ? parse_decision_reason(reason->get_ref<const std::string&>())
                                          : parse_decision_reason(python::str(*reason));
    decision.best_score = python::to_float(*best_score);
    decision.best_step = python::to_int(*best_step);
    decision.lower_score_streak = python::to_int(*lower_score_streak);
    decision.evaluation_count = python::to_int(*evaluation_count);
    decision.best_is_external = external != nullptr && python::truthy(*external);
    return decision;
}

}  // namespace ckpt
