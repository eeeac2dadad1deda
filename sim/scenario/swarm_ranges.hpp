// The swarm's ranges and odds as data: what every seed's scenario is drawn from. The swarm
// (swarm.cpp) draws from these, in its fixed order, and the RapidCheck scenario generators
// (properties/support/scenario_generators.cpp) draw over the same ranges, so the two cannot drift.
// Ranges are inclusive. Depends on sim/ranks' rank limit only.
#pragma once

#include <array>
#include <cstdint>

#include "sim/ranks/rank_limit.hpp"

namespace ckpt::sim {

// True with probability numerator / denominator (Rng::chance).
struct Odds {
    std::uint64_t numerator = 0;
    std::uint64_t denominator = 1;

    // The odds of the opposite outcome, for a generator whose flag means "not this".
    constexpr Odds complement() const noexcept { return {denominator - numerator, denominator}; }
};

template <typename T>
struct Range {
    T lo{};
    T hi{};  // inclusive
};

// A roll in [0, 100) picks a band: one rank, two, a few, or many.
struct RankMix {
    int one_rank_below = 30;   // 30%: one rank
    int two_ranks_below = 55;  // 25%: two
    int few_below = 80;        // 25%: `few`; the remaining 20%: `many`
    Range<int> few{3, 4};
    Range<int> many{5, kMaxRanks};
};

// Swarm testing: each fault kind is on or off for a seed with its own odds, and an enabled kind
// plans `events_per_kind` faults.
struct FaultMix {
    Odds crashes{7, 10};
    Odds io_errors{1, 4};
    Odds corrupt_sidecar{1, 12};
    Odds corrupt_checkpoint{1, 12};
    Odds rank_death{1, 10};  // only with two ranks or more
    Odds preemption{1, 5};
    Range<int> events_per_kind{1, 2};
    // step_end is passed once per step, so its occurrence is a place in the run; the other crash
    // points are passed a few times per run.
    Range<std::uint32_t> step_end_occurrence{1, 400};
    Range<std::uint32_t> other_point_occurrence{1, 3};
    Odds process_kill{1, 2};  // otherwise a power loss
    // Power loss takes the whole node; only a process kill, with two ranks or more, can hit one rank.
    Odds rank_scoped_kill{1, 4};
    Range<std::uint32_t> io_error_occurrence{1, 4};
};

// BUGGIFY (buggify.hpp): each switch is on for a seed with `each` odds, drawn from its own
// stream after the swarm's draws, so the draws above keep their meaning.
struct BuggifyMix {
    Odds each{1, 4};
    Odds repeat_best_score{2, 3};  // ties are split four ways by tie policy: twice the odds
    // With ties on, tie policy stop is drawn again at these odds: its seed ends at its first tie
    // and the refusals a restore makes take a share, so it is the rarest of the four otherwise.
    Odds tie_policy_stop{1, 8};
    Range<std::int64_t> early_stopping_patience{1, 3};
    // Callback k's threshold is this times k: above one or two grid steps (1/score_grid), so a
    // callback counts a small improvement the trigger saves, and its counter is live in a checkpoint.
    double early_stopping_threshold = 0.06;
    Range<std::int64_t> epochs_per_regular_step{1, 3};  // steps_per_epoch = regular_steps * this
    Range<int> tie_script_repeats{3, 6};                // (lower, best) pairs after the first best
};

// Issue 11: the trainer's Transformers behaviours, drawn from their own stream (swarm.cpp's
// draw_trainer_realism) so the draws above keep their meaning. Each odds is for the real
// Transformers behaviour; the rest keeps the older model reachable.
struct TrainerRealismMix {
    Odds no_callback_state_restore{7, 10};  // restore_callback_states_from_checkpoint=False
    Odds no_checkpoint_fsync{3, 5};         // Transformers never fsyncs a checkpoint
    Odds stop_test_after_step{3, 4};        // the real loop's stop test
    Odds resume_argument_true{1, 5};        // train(resume_from_checkpoint=True)
    Odds rotation_by_mtime{7, 10};          // _rotate_checkpoints(use_mtime=True)
    Odds duplicate_refresh_appends{7, 10};  // PR #33875 unmerged: the refresh appends
    Odds restored_callbacks_at_end{7, 10};  // _load_callback_state re-adds them at the end
    // Row 7: Transformers' defaults (no metric, no load-best, "steps") stay the most drawn.
    Odds metric_for_best_model{3, 20};  // set at all
    Odds metric_is_loss{1, 3};          // "loss" rather than "score", when set
    Odds greater_is_better_set{1, 4};   // an explicit greater_is_better, either way
    Odds load_best_model_at_end{1, 10};
    Odds save_strategy_best{1, 50};
    Odds tracked_best_refused{1, 5};  // left as drawn, so refused when it can disagree
};

// Issue 21: Transformers' own evaluations and logging, and sharded weights, drawn from their own stream
// (swarm.cpp's draw_evaluations). Transformers' defaults (eval_strategy "no", logging_steps 500) stay the
// most drawn.
struct EvaluationMix {
    Odds evaluations_on{2, 5};    // eval_strategy "steps" or "epoch" rather than "no"
    Odds by_epoch{1, 4};          // of those: "epoch"
    Odds eval_steps_unset{1, 5};  // eval_steps None: every logging_steps
    Range<std::int64_t> eval_steps{3, 40};
    Odds frequent_logging{1, 2};  // logging_steps drawn below instead of the default 500
    Range<std::int64_t> logging_steps{5, 50};
    Odds sharded_weights{1, 4};  // the weights saved as shards and an index
    Range<int> weights_shards{2, 3};
    Odds save_only_model{1, 10};  // checkpoints without optimizer, scheduler and RNG files
};

// Issue 21: Transformers' own EarlyStoppingCallback beside the trigger callback, drawn from a stream
// of its own (swarm.cpp's draw_early_stopping_callback). Its arguments are Transformers' standard
// setup most often: a metric_for_best_model and evaluations on, which its on_train_begin asserts.
struct StockEarlyStoppingMix {
    Odds stock{4, 5};                // Transformers' own rather than the port's (not beside mixed keys)
    Odds rejected_arguments{1, 40};  // arguments its assertions reject: the job ends, is fixed, relaunched
    Odds loss_metric{1, 4};          // the standard setup's "loss", which the trigger refuses, then fixed
    Odds acting_patience{1, 10};     // a patience that stops runs, instead of the swarm's 1000 + k
    Range<int> patience{2, 8};
    Odds port_adopted_on_resume{3, 4};  // with states restored: the port's callback on every resume
    Range<int> adopted_patience{2, 5};  // its patience then: a counter restored live stops soon
};

// Issue 21: several nodes and TrainingArguments.save_on_each_node, from a stream of their own
// (swarm.cpp's draw_nodes). Transformers' default, saving on the main process only, stays the most
// drawn.
struct NodeMix {
    Odds two_nodes{1, 2};          // an even number of ranks split over two nodes
    Odds save_on_each_node{2, 3};  // of those: each node's local rank 0 saves and rotates
};

// Finding 28: gradient clipping, and gradients that overflow, from a stream of their own (swarm.cpp's
// draw_gradients). Transformers' default max_grad_norm, 1.0, stays the most drawn: with it every
// training log carries a grad_norm.
struct GradientMix {
    Odds clipping_off{1, 5};  // max_grad_norm 0: no grad_norm in the logs
    Odds overflows{1, 3};     // some steps' norms are inf or nan
};

struct SwarmRanges {
    RankMix ranks;
    Range<std::int64_t> max_steps{400, 1400};
    Range<std::int64_t> steps_per_epoch{60, 400};
    Odds epoch_saves{1, 5};
    Range<std::int64_t> save_steps{20, 60};
    Odds gate_steps{1, 2};
    std::array<std::int64_t, 3> gates{10, 25, 50};  // the seed's warm-up gates
    Odds regular{3, 10};
    Range<std::int64_t> regular_steps{40, 120};
    Range<std::int64_t> patience{2, 6};
    Odds no_warmup{1, 2};  // patience counts from step 0; otherwise from patience_start_step
    Range<std::int64_t> patience_start_step{50, 200};
    Odds keep_one{3, 5};  // save_total_limit 1; otherwise drawn from save_total_limit
    Range<std::int64_t> save_total_limit{2, 3};
    Odds protect_best{3, 10};
    Odds transformers_resume{11, 20};  // get_last_checkpoint, Transformers' own rule
    Range<int> early_stopping_callbacks{0, 3};
    Odds early_stopping_state_keys{1, 2};
    // Drawn from a stream of their own (swarm.cpp's draw_release_inputs).
    Odds mixed_state_keys{1, 2};  // of the keyed draws: positional callbacks beside keyed ones
    Odds upgraded_across_resume{4, 5};
    // Of the scenarios with no EarlyStoppingCallback and no other change on a resume: one added
    // on every resume (swarm.cpp's draw_added_callback), the path of Transformers' refresh KeyError.
    Odds callback_added_on_resume{1, 5};
    // The Transformers release (swarm.cpp's draw_transformers_release): v5, the current one, most.
    Odds transformers_v5{3, 5};
    // save_safetensors=False: the weights as torch.save's pytorch_model.bin (swarm.cpp's
    // draw_weights_format).
    Odds pickled_weights{1, 5};
    // Early stopping keeps out of the way (patience 1000 + k) unless BUGGIFY's early_stopping_acts.
    // Scripted scores are multiples of 1/score_grid in [0, 1], so ties are common.
    Range<int> script_length{8, 20};
    int score_grid = 40;
    Odds noisy_replay{1, 2};
    Odds external_baseline{3, 10};
    FaultMix faults;
    TrainerRealismMix trainer_realism;
    EvaluationMix evaluations;
    StockEarlyStoppingMix stock_early_stopping;
    NodeMix nodes;
    GradientMix gradients;
    Odds watchdog{17, 20};
    BuggifyMix buggify;
};

inline constexpr SwarmRanges kSwarm{};

}  // namespace ckpt::sim
