// How Transformers names, finds and lists checkpoints in output_dir, restated from its
// trainer_utils.py and trainer.py (v4.57; unchanged in v5.0): the checkpoint folder name,
// get_last_checkpoint, and the listing _sorted_checkpoints starts from. Written apart from the
// port's output_dir code on purpose, so a naming or parsing bug in the port is not mirrored here.
// Depends on the FileSystem port only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt::sim::transformers {

inline constexpr std::string_view kTrainerStateFile = "trainer_state.json";  // TRAINER_STATE_NAME
inline constexpr std::string_view kSafeWeightsFile = "model.safetensors";    // SAFE_WEIGHTS_NAME

struct Checkpoint {
    std::string name;  // the folder name inside output_dir
    std::int64_t step = 0;
};

// f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}".
std::string checkpoint_folder(std::int64_t step);
// `output_dir`/checkpoint-`step`.
std::string checkpoint_path(std::string_view output_dir, std::int64_t step);

// The step _re_checkpoint (^checkpoint\-(\d+)$) reads from a folder name; nullopt when the name
// does not match, or when its digits overflow 64 bits (Python's int would not, but no run
// reaches such a step).
std::optional<std::int64_t> checkpoint_step(std::string_view name);

// get_last_checkpoint(folder): of the entries of os.listdir(folder) that match _re_checkpoint and
// are directories (os.path.isdir follows links), the one with the largest step; nothing looks
// inside it. nullopt when there is none.
std::optional<Checkpoint> get_last_checkpoint(FileSystem& fs, const std::string& folder);

// The directories glob(f"{PREFIX_CHECKPOINT_DIR}-*") finds in output_dir whose path the step
// regex (.*checkpoint-([0-9]+)) matches, with that step, in ascending (step, name) order: the
// order _sorted_checkpoints(use_mtime=False) returns.
std::vector<Checkpoint> checkpoints_by_step(FileSystem& fs, const std::string& output_dir);

}  // namespace ckpt::sim::transformers
