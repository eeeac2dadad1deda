// The resume rules of resume_point.hpp. Every file-system step goes through the port in the
// order the simulator traces it: pick, then each removal, then one directory fsync.
#include "policy/output_dir/resume_point.hpp"

#include "policy/base/mutants.hpp"
#include "policy/output_dir/model_weights.hpp"

namespace ckpt {
namespace {

// Removes the checkpoints newer than `kept_step` (every one when nothing is kept).
void remove_newer_checkpoints(FileSystem& fs, const std::string& output_dir,
                              const std::optional<CheckpointEntry>& kept, ResumeObserver& observer) {
    const std::int64_t kept_step = kept ? kept->step : -1;
    bool removed = false;
    for (const auto& entry : list_checkpoints(fs, output_dir)) {
        if (entry.step > kept_step) {
            fs.remove_tree(join_path(output_dir, entry.name));
            observer.on_removed(entry);
            removed = true;
        }
    }
    if (removed) {
        fs.fsync_dir(output_dir);
    }
}

// The newest checkpoint Transformers can resume from: complete, and still holding its weights
// (a power loss inside rotation's rmtree, or before an unsynced save reached the disk, can keep
// trainer_state.json whole and lose or tear the weights).
std::optional<CheckpointEntry> last_resumable_checkpoint(FileSystem& fs, const std::string& output_dir) {
    if (mutants::is_active(mutants::Mutant::resume_ignores_weights)) {
        return last_complete_checkpoint(fs, output_dir);
    }
    const auto checkpoints = list_checkpoints(fs, output_dir);
    for (auto entry = checkpoints.rbegin(); entry != checkpoints.rend(); ++entry) {
        if (is_complete_checkpoint(fs, output_dir, entry->step) &&
            holds_loadable_weights(fs, join_path(output_dir, entry->name))) {
            return *entry;
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<CheckpointEntry> pick_resume_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                      ResumeSourceRule rule) {
    return rule == ResumeSourceRule::newest_directory ? last_checkpoint(fs, output_dir)
                                                      : last_resumable_checkpoint(fs, output_dir);
}

std::optional<CheckpointEntry> resume_from_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                      ResumeSourceRule rule, ResumeObserver& observer) {
    if (mutants::is_active(mutants::Mutant::resume_trusts_incomplete)) {
        rule = ResumeSourceRule::newest_directory;
    }
    const auto source = pick_resume_checkpoint(fs, output_dir, rule);
    if (source && !observer.on_chosen(*source)) {
        return std::nullopt;
    }
    if (rule == ResumeSourceRule::newest_complete) {
        remove_newer_checkpoints(fs, output_dir, source, observer);
    }
    return source;
}

}  // namespace ckpt
