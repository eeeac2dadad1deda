// The policy's decisions, validation and state_dict round trip. The tie_replaces_best and
// warmup_consumes_patience mutants are read here, with one thread-local read per decision.
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

CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe(double score, std::int64_t step) {
    return observe_checked(check_finite_score(score), check_step(step));
}

CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe(const nlohmann::json& score,
                                                                 const nlohmann::json& step) {
    const double score_value = coerce_finite_score(score);
    return observe_checked(score_value, coerce_step(step));
}

namespace {

// The refusals live out of line, so observe()'s fast path stays a handful of instructions.
[[noreturn, gnu::cold]] void throw_already_stopped() {
    throw RuntimeError(
        "checkpoint evaluation policy already requested training stop; "
        "create a new run instead of observing more scores");
}

[[noreturn, gnu::cold]] void throw_counter_overflow() {
    throw ValueError("checkpoint evaluation counters cannot exceed " + std::to_string(INT64_MAX));
}

}  // namespace

CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe_checked(double score, std::int64_t step) {
    auto& s = state_;
    if (s.stop_requested) {
        throw_already_stopped();
    }
    // Python's integers do not overflow; ours would, silently (and undefined). A state that
    // carries a counter this large cannot be from a real run: refuse instead of wrapping.
    if (s.evaluation_count == INT64_MAX || s.lower_score_streak == INT64_MAX) {
        throw_counter_overflow();
    }
    s.evaluation_count += 1;
    const auto mutant = mutants::active();  // one thread-local read for the whole decision

    const bool first = !s.best_score;
    const bool improves =
        first || score > *s.best_score || (mutant == Mutant::tie_replaces_best && score == *s.best_score);
    if (improves) {
        s.best_score = score;
        s.best_step = step;
        s.lower_score_streak = 0;
        s.stop_requested = false;
        s.best_is_external = false;
        return decide(score, step, true, false, first ? DecisionReason::initial : DecisionReason::improved);
    }

    const bool lower = score < *s.best_score;
    // Early evaluations are health checks: they may improve the best (above), but a transient
    // drop or plateau before the boundary never consumes patience.
    const bool in_warmup = mutant == Mutant::warmup_boundary_off_by_one
                               ? step <= settings_.patience_start_step
                               : step < settings_.patience_start_step;
    if (in_warmup && mutant != Mutant::warmup_consumes_patience) {
        s.lower_score_streak = 0;
        s.stop_requested = false;
        return decide(score, step, false, false,
                      lower ? DecisionReason::patience_warmup_lower : DecisionReason::patience_warmup_tie);
    }

    const auto count_toward_patience = [&](DecisionReason not_yet) {
        s.lower_score_streak += 1;
        s.stop_requested = s.lower_score_streak >= settings_.patience;
        return decide(score, step, false, s.stop_requested,
                      s.stop_requested ? DecisionReason::patience_exhausted : not_yet);
    };
    if (lower) {
        return count_toward_patience(DecisionReason::lower);
    }

    // Equality never overwrites the retained checkpoint; the tie policy makes repeated
    // plateaus predictable for long-running jobs.
    const auto tie_policy = settings_.tie_policy == TiePolicy::ignore && mutant == Mutant::tie_policy_as_reset
                                ? TiePolicy::reset
                                : settings_.tie_policy;
    switch (tie_policy) {
        case TiePolicy::reset:
            s.lower_score_streak = 0;
            s.stop_requested = false;
            return decide(score, step, false, false, DecisionReason::tie_reset);
        case TiePolicy::stop:
            s.stop_requested = true;
            return decide(score, step, false, true, DecisionReason::tie_stop);
        case TiePolicy::count:
            return count_toward_patience(DecisionReason::tie_counted);
        case TiePolicy::ignore:
            break;
    }
    s.stop_requested = false;
    return decide(score, step, false, false, DecisionReason::tie_ignored);
}

CheckpointEvaluationDecision CheckpointEvaluationPolicy::decide(double score, std::int64_t step,
                                                                bool should_save, bool should_stop,
                                                                DecisionReason reason) const noexcept {
    return CheckpointEvaluationDecision{
        .score = score,
        .step = step,
        .should_save = should_save,
        .should_stop = should_stop,
        .reason = reason,
        .best_score = *state_.best_score,
        .best_step = *state_.best_step,
        .lower_score_streak = state_.lower_score_streak,
        .evaluation_count = state_.evaluation_count,
        .best_is_external = state_.best_is_external,
    };
}

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
