// _sorted_checkpoints and the choice of what _rotate_checkpoints deletes, as Transformers does
// them: by directory mtime (use_mtime=True, with the step-order fallback when the mtimes span
// less than 1 s) or by step, then the protected best bubbled next to the newest and the oldest
// deleted down to save_total_limit (2 when the best is protected and not the newest).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "policy/ports/file_system.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/trainer/checkpoint_mtimes.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"

namespace ckpt::sim {

// Oldest first, as _sorted_checkpoints returns them. `checkpoints` is in step order.
std::vector<transformers::Checkpoint> sorted_checkpoints(std::vector<transformers::Checkpoint> checkpoints,
                                                         RotationOrder order, const CheckpointMtimes& mtimes);

// The checkpoints rotation deletes, in deletion order.
std::vector<transformers::Checkpoint> checkpoints_to_rotate(
    const std::vector<transformers::Checkpoint>& sorted, std::int64_t save_total_limit,
    std::optional<std::int64_t> protected_step);

// The older, kinder model's protect_best_in_rotation (not Transformers): the step of the
// checkpoint output_dir's final_checkpoint link names, read from the link itself.
std::optional<std::int64_t> linked_checkpoint_step(FileSystem& fs);

}  // namespace ckpt::sim
