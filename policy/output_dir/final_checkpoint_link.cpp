// The link update and its pruning rule, and the reader that accepts only [./]checkpoint-N
// targets (or an absolute one inside output_dir), so a foreign link is never taken for ours.
#include "policy/output_dir/final_checkpoint_link.hpp"

#include "policy/base/mutants.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"

namespace ckpt {

void update_final_checkpoint_link(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                                  std::int64_t max_checkpoints) {
    const auto link = join_path(output_dir, kFinalCheckpointLink);
    const auto temp = join_path(output_dir, kLinkTempName);
    if (fs.is_symlink(temp) || fs.exists(temp)) {
        fs.unlink(temp);
    }
    fs.symlink(checkpoint_dir_name(step), temp);
    fs.rename(temp, link);
    fs.fsync_dir(output_dir);

    const auto pruned = checkpoints_pruned_by_link(list_checkpoints(fs, output_dir), step, max_checkpoints);
    if (pruned.empty()) {
        return;
    }
    for (const auto& entry : pruned) {
        fs.remove_tree(join_path(output_dir, entry.name));
    }
    fs.fsync_dir(output_dir);
}

std::vector<CheckpointEntry> checkpoints_pruned_by_link(std::vector<CheckpointEntry> checkpoints,
                                                        std::int64_t step, std::int64_t max_checkpoints) {
    std::erase_if(checkpoints, [step](const CheckpointEntry& entry) { return entry.step >= step; });
    const bool keeps_older = max_checkpoints > 1 && !mutants::is_active(mutants::Mutant::prune_all_older);
    const auto keep = static_cast<std::size_t>(keeps_older ? max_checkpoints - 1 : 0);
    checkpoints.resize(checkpoints.size() > keep ? checkpoints.size() - keep : 0);
    return checkpoints;
}

std::optional<std::int64_t> final_checkpoint_step(FileSystem& fs, const std::string& output_dir) {
    const auto link = join_path(output_dir, kFinalCheckpointLink);
    if (!fs.is_symlink(link)) {
        return std::nullopt;
    }
    std::string target = fs.readlink(link);
    while (target.size() > 1 && target.back() == '/') {
        target.pop_back();
    }
    if (target.rfind("./", 0) == 0) {
        target.erase(0, 2);
    }
    // An absolute target counts when it points into output_dir itself.
    if (!target.empty() && target.front() == '/') {
        if (parent_path(target) != output_dir) {
            return std::nullopt;
        }
        target = base_name(target);
    }
    return parse_checkpoint_step(target);
}

}  // namespace ckpt
