// The policy's validation, its JSON-typed entry points and the baseline; observe()'s typed fast
// path (and the mutants it reads) is inline in checkpoint_evaluation_observe.hpp.
#include "policy/core/checkpoint_evaluation_policy.hpp"

#include <string>

#include "policy/base/errors.hpp"
#include "policy/base/mutants.hpp"
#include "policy/python/evaluation_inputs.hpp"
#include "policy/python/python_values.hpp"

namespace ckpt {

using mutants::Mutant;

void PolicySettings::validate() const {
    if (patience <= 0) {
        throw ValueError("patience must be a positive integer, got " + std::to_string(patience));
    }
    if (patience_start_step < 0) {
        throw ValueError("patience_start_step must be a non-negative integer");
    }
}

CheckpointEvaluationPolicy::CheckpointEvaluationPolicy(PolicySettings settings,
                                                       CheckpointEvaluationState state)
    : settings_(settings), state_(state) {
    settings_.validate();
    validate_state(state_);
}

CheckpointEvaluationPolicy CheckpointEvaluationPolicy::from_loose_settings(
    const nlohmann::json& patience, const nlohmann::json& tie_policy,
    const nlohmann::json& patience_start_step) {
    PolicySettings settings;
    try {
        settings.patience = python::to_int(patience);
    } catch (const ValueError&) {
        throw ValueError("patience must be a positive integer");
    }
    if (settings.patience <= 0) {
        settings.validate();
    }
    settings.tie_policy = parse_tie_policy(python::str(tie_policy));
    try {
        settings.patience_start_step = python::to_int(patience_start_step);
    } catch (const ValueError&) {
        throw ValueError("patience_start_step must be a non-negative integer");
    }
    return CheckpointEvaluationPolicy(settings);
}

void CheckpointEvaluationPolicy::validate_state(const CheckpointEvaluationState& state) {
    if (state.best_score) {
        check_finite_score(*state.best_score);
    }
    if (state.best_step) {
        check_step(*state.best_step);
    }
    if (!state.best_score && state.best_step) {
        throw ValueError("checkpoint evaluation state has best_step without best_score");
    }
    if (state.best_score && !state.best_step) {
        throw ValueError("checkpoint evaluation state has best_score without best_step");
    }
    if (state.lower_score_streak < 0 || state.evaluation_count < 0) {
        throw ValueError("checkpoint evaluation counters cannot be negative");
    }
    if (state.evaluation_count > 0 && !state.best_score) {
        throw ValueError("checkpoint evaluation state has completed evaluations without a best score");
    }
    if (state.stop_requested && !state.best_score) {
        throw ValueError("checkpoint evaluation stop state has no best score");
    }
    if (state.best_is_external && !state.best_score) {
        throw ValueError("external checkpoint evaluation baseline has no score");
    }
}

CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe(const nlohmann::json& score,
                                                                 const nlohmann::json& step) {
    const double score_value = coerce_finite_score(score);
    return observe_checked(score_value, coerce_step(step));
}

namespace detail {

// The refusals of observe()'s inline fast path (checkpoint_evaluation_observe.hpp), out of line.
void throw_already_stopped() {
    throw RuntimeError(
        "checkpoint evaluation policy already requested training stop; "
        "create a new run instead of observing more scores");
}

void throw_counter_overflow() {
    throw ValueError("checkpoint evaluation counters cannot exceed " + std::to_string(INT64_MAX));
}

}  // namespace detail

const CheckpointEvaluationState& CheckpointEvaluationPolicy::establish_external_baseline(double score,
                                                                                         std::int64_t step) {
    return baseline_checked(check_finite_score(score), check_step(step));
}

const CheckpointEvaluationState& CheckpointEvaluationPolicy::establish_external_baseline(
    const nlohmann::json& score, const nlohmann::json& step) {
    const double score_value = coerce_finite_score(score);
    return baseline_checked(score_value, coerce_step(step));
}

const CheckpointEvaluationState& CheckpointEvaluationPolicy::baseline_checked(double score,
                                                                              std::int64_t step) {
    // A resumed run already holds its durable reference (or a real best): keep it.
    if (state_.best_score && !mutants::is_active(Mutant::baseline_overwrites_restore)) {
        return state_;
    }
    state_.best_score = score;
    state_.best_step = step;
    state_.lower_score_streak = 0;
    state_.stop_requested = false;
    state_.best_is_external = true;
    return state_;
}

}  // namespace ckpt
