// The swarm: every seed draws its whole configuration and fault mix (swarm testing), so a
// default exploration covers feature combinations no hand-written scenario list would. The
// ranges are kSwarm's (swarm_ranges.hpp); the order of the draws below is part of every seed's
// meaning, so it must not change.
#include "sim/scenario/swarm.hpp"

#include <algorithm>
#include <vector>

#include "policy/core/tie_policy.hpp"
#include "sim/base/enum_names.hpp"
#include "sim/base/rng.hpp"
#include "sim/scenario/buggify.hpp"
#include "sim/scenario/roll.hpp"
#include "sim/scenario/swarm_ranges.hpp"

namespace ckpt::sim {
namespace {

template <typename T>
T draw(Rng& rng, Range<T> range) {
    return rng.uniform<T>(range.lo, range.hi);
}

// A uniformly drawn enumerator of an enum whose name table has `count` entries.
template <typename Enum>
Enum draw_enumerator(Rng& rng, std::size_t count) {
    return static_cast<Enum>(rng.below(count));
}

int draw_ranks(Rng& rng) {
    const RankMix& mix = kSwarm.ranks;
    const auto band = rng.below(100);
    if (band < static_cast<std::uint64_t>(mix.one_rank_below)) {
        return 1;
    }
    if (band < static_cast<std::uint64_t>(mix.two_ranks_below)) {
        return 2;
    }
    if (band < static_cast<std::uint64_t>(mix.few_below)) {
        return draw(rng, mix.few);
    }
    return draw(rng, mix.many);
}

PlannedFault draw_crash(Rng& rng, int ranks) {
    const FaultMix& mix = kSwarm.faults;
    PlannedFault fault;
    fault.action = FaultAction::crash;
    fault.point = draw_enumerator<CrashPoint>(rng, kCrashPointNames.size());
    fault.occurrence =
        draw(rng, fault.point == CrashPoint::step_end ? mix.step_end_occurrence : mix.other_point_occurrence);
    fault.kind = roll(rng, mix.process_kill) ? CrashKind::process_kill : CrashKind::power_loss;
    fault.power_loss = draw_enumerator<PowerLossMode>(rng, kPowerLossModeNames.size());
    if (fault.kind == CrashKind::process_kill && ranks > 1 && roll(rng, mix.rank_scoped_kill)) {
        fault.scope = CrashScope::rank;
        fault.rank = rng.uniform(0, ranks - 1);
    }
    return fault;
}

PlannedFault draw_io_error(Rng& rng) {
    PlannedFault fault;
    fault.action = FaultAction::io_error;
    fault.target = draw_enumerator<IoTarget>(rng, kIoTargetNames.size());
    fault.error = static_cast<FaultKind>(
        rng.uniform(static_cast<int>(kFirstInjectedFaultKind), static_cast<int>(kFaultKindNames.size()) - 1));
    fault.occurrence = draw(rng, kSwarm.faults.io_error_occurrence);
    return fault;
}

PlannedFault draw_at_step(Rng& rng, FaultAction action, std::int64_t max_steps, int ranks) {
    PlannedFault fault;
    fault.action = action;
    fault.at_step = rng.uniform<std::int64_t>(1, max_steps);
    if (action == FaultAction::rank_death) {
        fault.rank = rng.uniform(0, ranks - 1);
    }
    return fault;
}

std::vector<PlannedFault> draw_faults(Rng& rng, const Scenario& s) {
    const FaultMix& mix = kSwarm.faults;
    const bool crashes = roll(rng, mix.crashes);
    const bool io_errors = roll(rng, mix.io_errors);
    const bool corrupt_sidecar = roll(rng, mix.corrupt_sidecar);
    const bool corrupt_checkpoint = roll(rng, mix.corrupt_checkpoint);
    const bool rank_death = s.job.ranks > 1 && roll(rng, mix.rank_death);
    const bool preemption = roll(rng, mix.preemption);
    std::vector<PlannedFault> faults;
    const auto repeat = [&](bool enabled, auto&& draw_one) {
        if (!enabled) {
            return;
        }
        const auto count = draw(rng, mix.events_per_kind);
        for (int i = 0; i < count; ++i) {
            faults.push_back(draw_one());
        }
    };
    const auto at_step = [&](FaultAction action) {
        return [&rng, &s, action] { return draw_at_step(rng, action, s.trainer.max_steps, s.job.ranks); };
    };
    repeat(crashes, [&] { return draw_crash(rng, s.job.ranks); });
    repeat(io_errors, [&] { return draw_io_error(rng); });
    repeat(corrupt_sidecar, at_step(FaultAction::corrupt_sidecar));
    repeat(corrupt_checkpoint, at_step(FaultAction::corrupt_checkpoint));
    repeat(rank_death, at_step(FaultAction::rank_death));
    repeat(preemption, at_step(FaultAction::preemption));
    if (faults.empty()) {
        faults.push_back(draw_crash(rng, s.job.ranks));
    }
    return faults;
}

void draw_schedule(Rng& rng, Scenario& s) {
    s.trainer.max_steps = draw(rng, kSwarm.max_steps);
    s.trainer.steps_per_epoch = draw(rng, kSwarm.steps_per_epoch);
    s.trainer.save_strategy = roll(rng, kSwarm.epoch_saves) ? SaveStrategy::epoch : SaveStrategy::steps;
    s.trainer.save_steps = draw(rng, kSwarm.save_steps);
    if (roll(rng, kSwarm.gate_steps)) {
        s.callbacks.gate_steps.assign(kSwarm.gates.begin(), kSwarm.gates.end());
    }
    if (roll(rng, kSwarm.regular)) {
        s.callbacks.regular_steps = draw(rng, kSwarm.regular_steps);
    }
}

void draw_callbacks(Rng& rng, Scenario& s) {
    s.callbacks.policy.patience = draw(rng, kSwarm.patience);
    s.callbacks.policy.tie_policy = draw_enumerator<TiePolicy>(rng, enumerator_count<TiePolicy>());
    s.callbacks.policy.patience_start_step =
        roll(rng, kSwarm.no_warmup) ? 0 : draw(rng, kSwarm.patience_start_step);
    s.trainer.save_total_limit = roll(rng, kSwarm.keep_one) ? 1 : draw(rng, kSwarm.save_total_limit);
    s.trainer.protect_best_in_rotation = roll(rng, kSwarm.protect_best);
    s.trainer.resume_rule =
        roll(rng, kSwarm.transformers_resume) ? ResumeRule::transformers : ResumeRule::fixed;
    s.callbacks.early_stopping_callbacks = draw(rng, kSwarm.early_stopping_callbacks);
    s.callbacks.early_stopping_state_keys = roll(rng, kSwarm.early_stopping_state_keys);
}

void draw_scores(Rng& rng, ScoreModelConfig& score) {
    score.kind = draw_enumerator<ScoreKind>(rng, kScoreKindNames.size());
    if (score.kind == ScoreKind::scripted) {
        const auto length = draw(rng, kSwarm.script_length);
        for (int i = 0; i < length; ++i) {
            score.script.push_back(static_cast<double>(rng.uniform(0, kSwarm.score_grid)) /
                                   kSwarm.score_grid);
        }
    }
    score.noisy_replay = roll(rng, kSwarm.noisy_replay);
    score.external_baseline = roll(rng, kSwarm.external_baseline);
}

// Issue 11's dimensions, from a stream of their own: adding or changing one never moves the
// draws above (other switches are drawn elsewhere, additively).
void draw_trainer_realism(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("trainer_realism");
    const TrainerRealismMix& mix = kSwarm.trainer_realism;
    trainer.restore_callback_states_from_checkpoint = !roll(rng, mix.no_callback_state_restore);
    trainer.checkpoint_fsync = !roll(rng, mix.no_checkpoint_fsync);
    trainer.stop_test = roll(rng, mix.stop_test_after_step) ? StopTest::after_step : StopTest::before_step;
    trainer.resume_from_checkpoint = roll(rng, mix.resume_argument_true)
                                         ? ResumeArgument::always_true
                                         : ResumeArgument::last_checkpoint_path;
    trainer.rotation_order = roll(rng, mix.rotation_by_mtime) ? RotationOrder::mtime : RotationOrder::step;
    trainer.stateful_callbacks_refresh = roll(rng, mix.duplicate_refresh_appends)
                                             ? StatefulCallbacksRefresh::append
                                             : StatefulCallbacksRefresh::replace;
    trainer.restored_callbacks_position = roll(rng, mix.restored_callbacks_at_end)
                                              ? RestoredCallbacksPosition::end
                                              : RestoredCallbacksPosition::kept;
    if (roll(rng, mix.metric_for_best_model)) {
        trainer.metric_for_best_model = roll(rng, mix.metric_is_loss) ? "loss" : "score";
    }
    if (roll(rng, mix.greater_is_better_set)) {
        trainer.greater_is_better = roll(rng, Odds{1, 2});
    }
    trainer.load_best_model_at_end = roll(rng, mix.load_best_model_at_end);
    // A tracked best beside a limit of 1, or on another metric or direction than the callback's
    // score, is refused; most such draws are turned into the accepted form (Transformers' default
    // save_total_limit is None), so the refusals stay reachable but rare.
    if (!trainer.tracked_metric().empty() && !roll(rng, mix.tracked_best_refused)) {
        trainer.save_total_limit = std::max<std::int64_t>(trainer.save_total_limit, 2);
        trainer.metric_for_best_model = "score";
        if (trainer.greater_is_better == false) {
            trainer.greater_is_better.reset();
        }
    }
    if (roll(rng, mix.save_strategy_best)) {
        trainer.save_strategy = SaveStrategy::best;
    }
}

// Issue 20's inputs, from a stream of their own, like the trainer's realism. Mixed keys test
// something only where a restore matches states: two callbacks or more, and states restored.
void draw_release_inputs(std::uint64_t seed, Scenario& s) {
    Rng rng = Rng(seed).derive("release_inputs");
    auto& callbacks = s.callbacks;
    if (callbacks.early_stopping_state_keys && roll(rng, kSwarm.mixed_state_keys)) {
        callbacks.early_stopping_mixed_keys = true;
        callbacks.early_stopping_callbacks = std::max(callbacks.early_stopping_callbacks, 2);
        s.trainer.restore_callback_states_from_checkpoint = true;
    }
    callbacks.upgraded_across_resume = roll(rng, kSwarm.upgraded_across_resume);
}

// TrainingArguments' post-init refuses load_best_model_at_end unless the evaluations follow the
// save strategy and, by steps, save_steps is a round multiple of eval_steps: such a draw takes an
// evaluation schedule Transformers accepts (one of save_steps' divisors of 3 or more).
void align_evaluations_with_saves(Rng& rng, TrainerOptions& trainer) {
    if (trainer.load_best_model_at_end && trainer.save_strategy == SaveStrategy::epoch) {
        trainer.eval_strategy = EvalStrategy::epoch;
    } else if (trainer.load_best_model_at_end && trainer.save_strategy == SaveStrategy::steps) {
        std::vector<std::int64_t> divisors;
        for (std::int64_t d = 3; d <= trainer.save_steps; ++d) {
            if (trainer.save_steps % d == 0) {
                divisors.push_back(d);
            }
        }
        trainer.eval_strategy = EvalStrategy::steps;
        trainer.eval_steps = divisors.empty() ? trainer.save_steps : divisors[rng.below(divisors.size())];
    }
}

// Issue 21's evaluations, logging and sharded weights, from a stream of their own like the
// trainer's realism.
void draw_evaluations(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("evaluations");
    const EvaluationMix& mix = kSwarm.evaluations;
    if (roll(rng, mix.evaluations_on)) {
        trainer.eval_strategy = roll(rng, mix.by_epoch) ? EvalStrategy::epoch : EvalStrategy::steps;
    }
    if (!roll(rng, mix.eval_steps_unset)) {
        trainer.eval_steps = draw(rng, mix.eval_steps);
    }
    if (roll(rng, mix.frequent_logging)) {
        trainer.logging_steps = draw(rng, mix.logging_steps);
    }
    if (roll(rng, mix.sharded_weights)) {
        trainer.weights_shards = draw(rng, mix.weights_shards);
    }
    align_evaluations_with_saves(rng, trainer);
    trainer.save_only_model = roll(rng, mix.save_only_model);  // last: the draws above keep their values
}

// Gradient clipping and overflowing gradients (finding 28), from a stream of their own.
void draw_gradients(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("gradients");
    trainer.max_grad_norm = roll(rng, kSwarm.gradients.clipping_off) ? 0.0 : 1.0;
    trainer.gradient_overflows = roll(rng, kSwarm.gradients.overflows);
}

// Transformers' own EarlyStoppingCallback, from a stream of its own. Beside mixed state keys the
// callbacks stay the port's: Transformers' has no state_key.
void draw_early_stopping_callback(std::uint64_t seed, Scenario& s) {
    Rng rng = Rng(seed).derive("early_stopping_callback");
    const StockEarlyStoppingMix& mix = kSwarm.stock_early_stopping;
    auto& callbacks = s.callbacks;
    auto& trainer = s.trainer;
    if (callbacks.early_stopping_callbacks == 0 || callbacks.early_stopping_mixed_keys ||
        !roll(rng, mix.stock)) {
        return;
    }
    callbacks.early_stopping_callback = EarlyStoppingCallbackKind::transformers;
    callbacks.early_stopping_state_keys = false;
    if (roll(rng, mix.acting_patience)) {
        callbacks.early_stopping_patience = draw(rng, mix.patience);
    }
    if (roll(rng, mix.rejected_arguments)) {
        // What its on_train_begin asserts on: no metric, or no evaluations (load_best_model_at_end
        // off, which would imply both).
        trainer.load_best_model_at_end = false;
        if (roll(rng, Odds{1, 2})) {
            trainer.metric_for_best_model.clear();
        } else {
            trainer.eval_strategy = EvalStrategy::no;
        }
        return;
    }
    if (trainer.metric_for_best_model.empty()) {
        trainer.metric_for_best_model = roll(rng, mix.loss_metric) ? "loss" : "score";
        trainer.greater_is_better.reset();
    }
    trainer.save_total_limit = std::max<std::int64_t>(trainer.save_total_limit, 2);
    if (trainer.eval_strategy == EvalStrategy::no) {
        trainer.eval_strategy =
            roll(rng, kSwarm.evaluations.by_epoch) ? EvalStrategy::epoch : EvalStrategy::steps;
    }
    align_evaluations_with_saves(rng, trainer);
    // A user adopting the port's callback on a resume, the states restored; a restored counter goes on
    // after the switch only if it is live: a patience that stops.
    if (trainer.restore_callback_states_from_checkpoint && roll(rng, mix.port_adopted_on_resume)) {
        callbacks.resume_change.early_stopping_callback = EarlyStoppingCallbackKind::port;
        callbacks.early_stopping_patience = draw(rng, mix.adopted_patience);
    }
}

// Two nodes for an even number of ranks, and whether each saves, from a stream of their own.
void draw_nodes(std::uint64_t seed, Scenario& s) {
    Rng rng = Rng(seed).derive("nodes");
    const NodeMix& mix = kSwarm.nodes;
    if (s.job.ranks % 2 == 0 && roll(rng, mix.two_nodes)) {
        s.job.nodes = 2;
        s.trainer.save_on_each_node = roll(rng, mix.save_on_each_node);
    }
}

// A user who adds an EarlyStoppingCallback before resuming a job that ran without one, from a
// stream of its own: the checkpoint's stateful_callbacks lacks the class, which Transformers'
// refresh indexes at the first save (finding 22). BUGGIFY's configuration change reaches it too,
// but only in 0.7% of scenarios.
void draw_added_callback(std::uint64_t seed, CallbackOptions& callbacks) {
    Rng rng = Rng(seed).derive("added_callback");
    if (callbacks.early_stopping_callbacks == 0 && !callbacks.resume_change.any() &&
        roll(rng, kSwarm.callback_added_on_resume)) {
        callbacks.resume_change.early_stopping = std::vector<int>{0};
    }
}

// The Transformers release, from a stream of its own: the releases differ only where
// TransformersRelease says, so the draws above keep their values.
void draw_transformers_release(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("transformers_release");
    trainer.transformers_release =
        roll(rng, kSwarm.transformers_v5) ? TransformersRelease::v5 : TransformersRelease::v4_57;
}

// TrainingArguments.save_safetensors, from a stream of its own: Transformers' default (True) most.
void draw_weights_format(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("weights_format");
    trainer.save_safetensors = !roll(rng, kSwarm.pickled_weights);
}

// A tracked best beside the trainer's own evaluations and a limit of 2 is refused (finding 24);
// most such draws, the standard early-stopping setup's among them, take the accepted limit of 3, so
// the refusal stays reachable but rare. From a stream of its own, after every draw that sets them.
void settle_stale_best_limit(std::uint64_t seed, TrainerOptions& trainer) {
    Rng rng = Rng(seed).derive("stale_best_limit");
    if (!trainer.tracked_metric().empty() && trainer.eval_strategy != EvalStrategy::no &&
        trainer.save_total_limit == 2 && !roll(rng, kSwarm.trainer_realism.tracked_best_refused)) {
        trainer.save_total_limit = 3;
    }
}

}  // namespace

Scenario draw_scenario(std::uint64_t seed) {
    Rng rng = Rng(seed).derive("scenario");
    Scenario s;
    s.seed = seed;
    s.job.ranks = draw_ranks(rng);
    draw_schedule(rng, s);
    draw_callbacks(rng, s);
    draw_scores(rng, s.score);
    s.faults = draw_faults(rng, s);
    s.job.watchdog = roll(rng, kSwarm.watchdog);
    // Early stopping small enough to act is BUGGIFY's early_stopping_acts switch.
    buggify(Rng(seed).derive("buggify"), s);
    draw_trainer_realism(seed, s.trainer);
    draw_release_inputs(seed, s);
    draw_evaluations(seed, s.trainer);
    draw_gradients(seed, s.trainer);
    draw_early_stopping_callback(seed, s);
    draw_nodes(seed, s);
    draw_added_callback(seed, s.callbacks);
    draw_transformers_release(seed, s.trainer);
    draw_weights_format(seed, s.trainer);
    settle_stale_best_limit(seed, s.trainer);
    return s;
}

}  // namespace ckpt::sim
