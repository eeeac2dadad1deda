// The slices of TrainingArguments and TrainerState that callbacks read, as plain values filled
// in by whichever trainer drives them (the simulator's or a real integration). Depends on nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

// The parts of Transformers' TrainingArguments and TrainerState that callbacks read. The
// simulator's trainer and a real integration both fill these in before each callback event.
struct TrainingArguments {
    std::string output_dir;
    // Read by on_train_begin to refuse the settings under which the callback cannot keep its
    // guarantees (docs/transformers.md, "Using the original's callback with Transformers safely").
    // Defaults are Transformers' own.
    std::string save_strategy = "steps";
    std::int64_t save_total_limit = 0;    // 0: None
    std::string metric_for_best_model{};  // empty: None
    bool load_best_model_at_end = false;
    bool greater_is_better = true;  // after post-init (its default follows metric_for_best_model)
    bool restore_callback_states_from_checkpoint = false;
    std::string eval_strategy = "no";  // "steps" and "epoch" run evaluations of the trainer's own
    // Not TrainingArguments fields: what on_train_begin learns from the trainer around them. The
    // classes state.stateful_callbacks stores as lists (several callbacks of one class), and
    // whether the installed Transformers appends their refreshed states to those lists on every
    // save (every release so far: PR #33875 is not merged; a real integration reads the version).
    std::vector<std::string> stateful_classes_with_several_callbacks{};
    bool refresh_appends_duplicate_states = true;
    // On a resume, the configured stateful callback classes that the checkpoint's
    // state.stateful_callbacks does not store (a callback added since): that same appending
    // refresh indexes the stored dict by class and raises KeyError on them at the first save.
    std::vector<std::string> stateful_classes_the_checkpoint_lacks{};
};

struct TrainerStateView {
    std::int64_t global_step = 0;
    bool is_world_process_zero = true;
    // TrainerState.epoch: whole at an epoch's natural end, fractional at an epoch end that a stop
    // brought forward (the loop broke mid-epoch) or at max_steps mid-epoch.
    double epoch = 0.0;
};

}  // namespace ckpt
