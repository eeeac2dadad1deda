// The seed's JSON format for CheckpointEvaluationPolicy: state_dict, load_state_dict and
// from_state_dict. The rules and messages are the seed's, including its Python coercions.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "policy/base/errors.hpp"
#include "policy/base/json_members.hpp"
#include "policy/base/json_object.hpp"
#include "policy/base/mutants.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/python/evaluation_inputs.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

// payload.get(key, fallback) without copying the fallback into a json when the key exists.
template <typename Fallback>
json get_or(const json& payload, const char* key, Fallback&& fallback) {
    const auto found = payload.find(key);
    return found != payload.end() ? *found : json(std::forward<Fallback>(fallback));
}

json state_to_json(const CheckpointEvaluationState& state) {
    return JsonObject()
        .add("best_score", state.best_score ? json(*state.best_score) : json(nullptr))
        .add("best_step", state.best_step ? json(*state.best_step) : json(nullptr))
        .add("lower_score_streak", state.lower_score_streak)
        .add("evaluation_count", state.evaluation_count)
        .add("stop_requested",
             state.stop_requested && !mutants::is_active(mutants::Mutant::stop_flag_not_persisted))
        .add("best_is_external", state.best_is_external)
        .build();
}

// The members a state payload may hold, in ascending order (find_members).
constexpr std::array<std::string_view, 6> kStateMembers{
    "best_is_external", "best_score", "best_step", "evaluation_count", "lower_score_streak", "stop_requested",
};
static_assert(std::is_sorted(kStateMembers.begin(), kStateMembers.end()));

// Builds the state the way the seed's dataclass constructor does: best_score and best_step are
// taken as given (validated next), the counters through int() and the flags through bool(). A
// missing member reads as the dataclass default.
CheckpointEvaluationState state_from_json(const json& raw) {
    static const json zero = 0;
    static const json no = false;
    const auto [best_is_external, best_score, best_step, evaluation_count, lower_score_streak,
                stop_requested] = find_members(raw, kStateMembers);
    CheckpointEvaluationState state;
    state.lower_score_streak = python::to_int(lower_score_streak != nullptr ? *lower_score_streak : zero);
    state.evaluation_count = python::to_int(evaluation_count != nullptr ? *evaluation_count : zero);
    state.stop_requested = python::truthy(stop_requested != nullptr ? *stop_requested : no);
    state.best_is_external = python::truthy(best_is_external != nullptr ? *best_is_external : no);
    if (best_score != nullptr && !best_score->is_null()) {
        state.best_score = coerce_finite_score(*best_score);
    }
    if (best_step != nullptr && !best_step->is_null()) {
        state.best_step = coerce_step(*best_step);
    }
    return state;
}

// The members of a state_dict payload, in ascending order (find_members).
constexpr std::array<std::string_view, 5> kPayloadMembers{
    "patience", "patience_start_step", "state", "tie_policy", "version",
};
static_assert(std::is_sorted(kPayloadMembers.begin(), kPayloadMembers.end()));

}  // namespace

json CheckpointEvaluationPolicy::state_dict() const {
    return JsonObject()
        .add("version", kStateVersion)
        .add("patience", settings_.patience)
        .add("tie_policy", to_string(settings_.tie_policy))
        .add("patience_start_step", settings_.patience_start_step)
        .add("state", state_to_json(state_))
        .build();
}

void CheckpointEvaluationPolicy::load_state_dict(const json& payload) {
    if (!payload.is_object()) {
        throw ValueError("checkpoint evaluation state must be a mapping");
    }
    const auto [patience, start, nested, tie, version] = find_members(payload, kPayloadMembers);
    if (version != nullptr && !python::equals_int(*version, kStateVersion)) {
        throw ValueError("unsupported checkpoint evaluation state version: " + python::repr(*version));
    }
    if (patience != nullptr && python::to_int(*patience) != settings_.patience) {
        throw ValueError("resumed checkpoint evaluation patience does not match configuration");
    }
    if (tie != nullptr) {
        bool same = false;
        try {
            same = parse_tie_policy(python::str(*tie)) == settings_.tie_policy;
        } catch (const ValueError&) {
            same = false;  // not a tie policy at all, so certainly not ours
        }
        if (!same) {
            throw ValueError("resumed checkpoint evaluation tie_policy does not match configuration");
        }
    }
    if (start != nullptr && python::to_int(*start) != settings_.patience_start_step) {
        throw ValueError("resumed checkpoint evaluation patience_start_step does not match configuration");
    }
    const json& raw_state = nested != nullptr ? *nested : payload;
    if (!raw_state.is_object()) {
        throw ValueError("checkpoint evaluation state payload must contain a state mapping");
    }
    const auto state = state_from_json(raw_state);
    validate_state(state);
    state_ = state;
}

CheckpointEvaluationPolicy CheckpointEvaluationPolicy::from_state_dict(const json& payload) {
    if (!payload.is_object()) {
        throw ValueError("checkpoint evaluation state must be a mapping");
    }
    auto policy = from_loose_settings(get_or(payload, "patience", 3), get_or(payload, "tie_policy", "reset"),
                                      get_or(payload, "patience_start_step", 0));
    policy.load_state_dict(payload);
    return policy;
}

}  // namespace ckpt
