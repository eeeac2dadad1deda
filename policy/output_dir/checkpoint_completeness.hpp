// The human-readable reason a checkpoint-N is not complete, for `ckptsim inspect` and error
// messages. Only meaningful for a checkpoint is_complete_checkpoint refused; reads only, through
// the FileSystem port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// For an incomplete checkpoint (checkpoint_layout.hpp's is_complete_checkpoint), the reason in
// words a person can check against the files.
// Why checkpoint-<step> under output_dir is not complete ("trainer_state.json is missing ...").
std::string why_checkpoint_is_incomplete(FileSystem& fs, const std::string& output_dir, std::int64_t step);

// The global_step checkpoint-<step>/trainer_state.json records when it is another step: the
// files are all there, but the directory name and the step counter disagree (a copied or
// renamed checkpoint). nullopt when the checkpoint is complete, or its state is missing, torn or
// records a negative step.
std::optional<std::int64_t> mismatched_global_step(FileSystem& fs, const std::string& output_dir,
                                                   std::int64_t step);

}  // namespace ckpt
