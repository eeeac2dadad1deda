// One evaluation under the seed's rules, written top to bottom with no mutant checks and no
// shortcuts, so a reader can hold it against the seed line by line.
#include "sim/checks/reference_policy.hpp"

#include <cmath>

namespace ckpt::sim {

ReferenceOutcome reference_observe(const PolicySettings& settings, CheckpointEvaluationState state,
                                   double score, std::int64_t step) {
    ReferenceOutcome out;
    state.evaluation_count += 1;
    const auto finish = [&](std::string_view reason, bool save) {
        out.after = state;
        out.reason = reason;
        out.should_save = save;
        out.should_stop = state.stop_requested;
        return out;
    };
    if (!state.best_score.has_value() || score > *state.best_score) {
        const bool first = !state.best_score.has_value();
        state.best_score = score;
        state.best_step = step;
        state.lower_score_streak = 0;
        state.stop_requested = false;
        state.best_is_external = false;
        return finish(first ? "initial" : "improved", true);
    }
    const bool lower = score < *state.best_score;
    if (step < settings.patience_start_step) {
        state.lower_score_streak = 0;
        state.stop_requested = false;
        return finish(lower ? "patience_warmup_lower" : "patience_warmup_tie", false);
    }
    const bool counts = lower || settings.tie_policy == TiePolicy::count;
    if (counts) {
        state.lower_score_streak += 1;
        state.stop_requested = state.lower_score_streak >= settings.patience;
        if (state.stop_requested) {
            return finish("patience_exhausted", false);
        }
        return finish(lower ? "lower" : "tie_counted", false);
    }
    switch (settings.tie_policy) {
        case TiePolicy::reset:
            state.lower_score_streak = 0;
            state.stop_requested = false;
            return finish("tie_reset", false);
        case TiePolicy::stop:
            state.stop_requested = true;
            return finish("tie_stop", false);
        default:
            state.stop_requested = false;
            return finish("tie_ignored", false);
    }
}

std::vector<std::string_view> reference_changed_settings(const PolicySettings& saved,
                                                         const PolicySettings& configured) {
    std::vector<std::string_view> changed;
    if (saved.patience != configured.patience) {
        changed.push_back("patience");
    }
    if (saved.tie_policy != configured.tie_policy) {
        changed.push_back("tie_policy");
    }
    if (saved.patience_start_step != configured.patience_start_step) {
        changed.push_back("patience_start_step");
    }
    return changed;
}

std::string_view reference_state_problem(const CheckpointEvaluationState& state) {
    const bool has_best = state.best_score.has_value();
    if (has_best && !std::isfinite(*state.best_score)) {
        return "best_score is not finite";
    }
    if (state.best_step.has_value() && *state.best_step < 0) {
        return "best_step is negative";
    }
    if (!has_best && state.best_step.has_value()) {
        return "best_step without best_score";
    }
    if (has_best && !state.best_step.has_value()) {
        return "best_score without best_step";
    }
    if (state.lower_score_streak < 0 || state.evaluation_count < 0) {
        return "a negative counter";
    }
    if (state.evaluation_count > 0 && !has_best) {
        return "evaluations without a best score";
    }
    if (state.stop_requested && !has_best) {
        return "a stop without a best score";
    }
    if (state.best_is_external && !has_best) {
        return "an external baseline without a score";
    }
    return {};
}

const char* reference_tie_policy_name(TiePolicy policy) {
    switch (policy) {
        case TiePolicy::reset:
            return "reset";
        case TiePolicy::ignore:
            return "ignore";
        case TiePolicy::stop:
            return "stop";
        case TiePolicy::count:
            return "count";
    }
    return "?";
}

CheckpointEvaluationState reference_baseline(CheckpointEvaluationState state, double score,
                                             std::int64_t step) {
    if (state.best_score.has_value()) {
        return state;
    }
    state.best_score = score;
    state.best_step = step;
    state.lower_score_streak = 0;
    state.stop_requested = false;
    state.best_is_external = true;
    return state;
}

}  // namespace ckpt::sim
