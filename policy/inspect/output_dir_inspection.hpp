#pragma once

// What `ckptsim inspect` finds in a real Transformers output directory: which checkpoints are
// complete, what a resume would pick and restore, whether final_checkpoint can be trusted, and
// every inconsistency between checkpoints, sidecar and link, each with what to do about it.
//
// The forecast runs the real callback code (TriggerCallback::from_state and load) over a
// read-only view of the directory, so the verdict follows the same rules a resumed job applies.

#include <string>

#include "policy/inspect/inspection_report.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

// Inspects `output_dir` without modifying it (every write through `fs` is refused). Throws
// FileSystemError when the directory is missing, is not a directory or cannot be listed.
OutputDirInspection inspect_output_dir(FileSystem& fs, const std::string& output_dir);

}  // namespace ckpt
