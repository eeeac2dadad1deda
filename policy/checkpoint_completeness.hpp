#pragma once

#include <cstdint>
#include <string>

#include "policy/file_system.hpp"

namespace ckpt {

// The completeness rule of checkpoint_layout.hpp as a reader of someone else's directory needs
// it: a verdict that never throws, and, for an incomplete checkpoint, the reason in words a
// person can check against the files.

// is_complete_checkpoint, with an unreadable trainer_state.json (EACCES, a directory in its
// place) counted as incomplete instead of thrown: no loader could use that checkpoint either.
bool checkpoint_is_usable(FileSystem& fs, const std::string& output_dir, std::int64_t step);

// Why checkpoint-<step> under output_dir is not complete ("trainer_state.json is missing ...").
std::string why_checkpoint_is_incomplete(FileSystem& fs, const std::string& output_dir, std::int64_t step);

}  // namespace ckpt
