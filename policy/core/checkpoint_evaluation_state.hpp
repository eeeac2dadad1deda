// The policy's durable state: what the sidecar and trainer_state.json carry so a resumed run
// decides exactly as the original would. Every field is part of the on-disk format; adding one
// is a format change (formats/document_migrations). Depends on nothing.
#pragma once

#include <cstdint>
#include <optional>

namespace ckpt {

// Everything the policy needs to make the same decision after a resume. It is what the
// sidecar and trainer_state.json carry, so every field here is part of the durable format.
struct CheckpointEvaluationState {
    std::optional<double> best_score;
    std::optional<std::int64_t> best_step;
    // Named for checkpoint compatibility. With tie_policy "count" it is the streak of
    // non-improvements, ties included.
    std::int64_t lower_score_streak = 0;
    std::int64_t evaluation_count = 0;
    // A stop must survive a crash before the trainer exits, or a resumed job would train for
    // another whole interval before noticing that patience had already run out.
    bool stop_requested = false;
    // The best is a step-zero reference score, not a checkpoint of this run. It takes part in
    // comparisons but never names an output_dir/checkpoint-N.
    bool best_is_external = false;

    friend bool operator==(const CheckpointEvaluationState&, const CheckpointEvaluationState&) = default;
};

}  // namespace ckpt
