// output_dir/final_checkpoint, "the model to ship" at any moment: an atomically replaced,
// relative symlink to the best checkpoint-N, and the pruning that comes with it. Checkpoints
// newer than the target are never touched. Depends on the layout and the FileSystem port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

// Points output_dir/final_checkpoint at checkpoint-<step> for users who want "the model to
// ship" at any moment of a long run, not only after train() returns.
//
// The link is replaced atomically (a new symlink under a temp name, renamed over the old one,
// then a directory fsync), so a reader sees the old target or the new one. The target is
// stored relative, so the output directory can be moved.
//
// Then `max_checkpoints` is honoured: of the checkpoints older than the new target, only the
// newest max_checkpoints - 1 are kept. Checkpoints newer than the target (a save in flight)
// are never touched. This mirrors how the seed calls its helper: the default (1) keeps the
// best alone, and save_total_limit is passed when it is larger.
void update_final_checkpoint_link(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                                  std::int64_t max_checkpoints = 1);

// The checkpoints of `checkpoints` (ascending steps) that update_final_checkpoint_link(step,
// max_checkpoints) removes: the older ones beyond the newest max_checkpoints - 1 of them.
std::vector<CheckpointEntry> checkpoints_pruned_by_link(std::vector<CheckpointEntry> checkpoints,
                                                        std::int64_t step, std::int64_t max_checkpoints);

// The step final_checkpoint names, if it is a link of the form [./]checkpoint-N.
std::optional<std::int64_t> final_checkpoint_step(FileSystem& fs, const std::string& output_dir);

}  // namespace ckpt
