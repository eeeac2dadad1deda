// The names and rules of a Transformers output_dir: checkpoint-N parsing, listing, completeness
// ("trainer_state.json parses and names step N", never "the directory exists") and the resume
// candidates. Shared by the callback, the simulated trainer and inspect, so they cannot disagree.
// Depends on the FileSystem port, formats/ and base/ only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// Names inside a Transformers output_dir, shared by the callback, the trainer model and
// `ckptsim inspect`.
inline constexpr std::string_view kTrainerStateName = "trainer_state.json";
inline constexpr std::string_view kSidecarName = "checkpoint_eval_state.json";
inline constexpr std::string_view kFinalCheckpointLink = "final_checkpoint";
// Prefixes of the temporary files our atomic writes leave behind when a writer is killed.
inline constexpr std::string_view kSidecarTempPrefix = ".checkpoint_eval_state.json.tmp-";
inline constexpr std::string_view kLinkTempName = ".final_checkpoint.tmp";
// Whether `name` in output_dir is one of those leftovers: what rank 0 removes in on_train_begin.
bool is_leftover_temp_name(std::string_view name);

std::string checkpoint_dir_name(std::int64_t step);
// The step of a directory name matching ^checkpoint-(\d+)$, as get_last_checkpoint reads it.
std::optional<std::int64_t> parse_checkpoint_step(std::string_view name);

struct CheckpointEntry {
    std::string name;
    std::int64_t step = 0;
};
// Every checkpoint-N directory under output_dir, in ascending step order.
std::vector<CheckpointEntry> list_checkpoints(FileSystem& fs, const std::string& output_dir);

// A checkpoint is complete when its trainer_state.json parses and its global_step is N.
// Transformers writes that file last and with a plain open(), so a save that crashed leaves a
// directory that exists but is not complete; "the directory exists" is not a commit.
bool is_complete_checkpoint(FileSystem& fs, const std::string& output_dir, std::int64_t step);

// Whether checkpoint-N's own trainer_state.json records the same best (step N, `best_score`)
// in the trigger callback's state. A sidecar names its best by step number only, and a crash
// that sends the job back to an older checkpoint (or to scratch) can later produce a different
// checkpoint-N: a sidecar from the abandoned history must not be trusted for it. True when the
// checkpoint holds no trigger-callback state to compare with (written by other code).
bool checkpoint_records_best(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                             double best_score);

// Transformers' get_last_checkpoint: the largest N, with no completeness check.
std::optional<CheckpointEntry> last_checkpoint(FileSystem& fs, const std::string& output_dir);
// The fixed resume rule: the largest N whose checkpoint is complete.
std::optional<CheckpointEntry> last_complete_checkpoint(FileSystem& fs, const std::string& output_dir);

}  // namespace ckpt
