// _sorted_checkpoints and the choice of what _rotate_checkpoints deletes, as Transformers does
// them: by directory mtime (use_mtime=True, with the step-order fallback when the mtimes span
// less than 1 s) or by step, then the protected best bubbled next to the newest and the oldest
// deleted down to save_total_limit (2 when the best is protected and not the newest).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/trainer/checkpoint_mtimes.hpp"

namespace ckpt::sim {

// Oldest first, as _sorted_checkpoints returns them. `checkpoints` is in step order.
std::vector<CheckpointEntry> sorted_checkpoints(std::vector<CheckpointEntry> checkpoints, RotationOrder order,
                                                const CheckpointMtimes& mtimes);

// The checkpoints rotation deletes, in deletion order.
std::vector<CheckpointEntry> checkpoints_to_rotate(const std::vector<CheckpointEntry>& sorted,
                                                   std::int64_t save_total_limit,
                                                   std::optional<std::int64_t> protected_step);

}  // namespace ckpt::sim
