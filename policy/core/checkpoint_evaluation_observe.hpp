// CheckpointEvaluationPolicy::observe's typed fast path, inline so a caller in another file (the
// trigger callback, the simulator, a benchmark) compiles it into place: a call across
// translation units was most of its cost. Its refusals stay out of line and cold. Included by
// checkpoint_evaluation_policy.hpp only; depends on base/mutants and python/evaluation_inputs.
#pragma once

#include <cstdint>

#include "policy/base/mutants.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/python/evaluation_inputs.hpp"

namespace ckpt {

namespace detail {
[[noreturn, gnu::cold]] void throw_already_stopped();
[[noreturn, gnu::cold]] void throw_counter_overflow();
}  // namespace detail

inline CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe(double score, std::int64_t step) {
    return observe_checked(check_finite_score(score), check_step(step));
}

inline CheckpointEvaluationDecision CheckpointEvaluationPolicy::observe_checked(double score,
                                                                                std::int64_t step) {
    using mutants::Mutant;
    auto& s = state_;
    if (s.stop_requested) {
        detail::throw_already_stopped();
    }
    // Python's integers do not overflow; ours would, silently (and undefined). A state that
    // carries a counter this large cannot be from a real run: refuse instead of wrapping.
    if (s.evaluation_count == INT64_MAX || s.lower_score_streak == INT64_MAX) {
        detail::throw_counter_overflow();
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

inline CheckpointEvaluationDecision CheckpointEvaluationPolicy::decide(double score, std::int64_t step,
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

}  // namespace ckpt
