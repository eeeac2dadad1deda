// The `ckptsim inspect` verdict on output_dir/final_checkpoint: valid or not, and each problem
// (missing, not a link, dangling, foreign, incomplete, not the retained best) as a finding with
// its fix. Reads only, via the FileSystem port; depends on output_dir/ and inspect/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/inspect/inspection_report.hpp"
#include "policy/ports/file_system.hpp"

namespace ckpt {

struct FinalCheckpointVerdict {
    FinalCheckpointStatus status;
    std::vector<InspectionFinding> problems;
};

// Judges output_dir/final_checkpoint for `ckptsim inspect`. Valid means a symlink naming a
// complete checkpoint-N of this directory. `retained_best` is the non-external best step a
// resume holds, when known: the link must name it, and must exist when it does. Reads only.
FinalCheckpointVerdict inspect_final_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                std::optional<std::int64_t> retained_best);

}  // namespace ckpt
