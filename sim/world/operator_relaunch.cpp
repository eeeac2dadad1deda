// The remedies of operator_relaunch.hpp: deletions through the simulated disk (an `rm -rf` that
// nothing fsyncs, so a later power loss may bring the entry back, as on a real disk) and the one
// launch setting each remedy changes.
#include "sim/world/operator_relaunch.hpp"

#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

std::string path_named_in(std::string_view message) {
    const std::string_view root = kOutputDir;
    const auto at = message.find(root);
    if (at == std::string_view::npos) {
        return {};
    }
    const auto end = message.find_first_of(" '\":,;)\n", at);
    const auto path = message.substr(at, end == std::string_view::npos ? end : end - at);
    return path.size() > root.size() + 1 && path[root.size()] == '/' ? std::string(path) : std::string();
}

bool apply_remedy(Remedy remedy, const std::string& path, std::string_view failure, SimFileSystem& fs,
                  Scenario& launch) {
    switch (remedy) {
        case Remedy::kill_hung_job:
            return true;  // the simulation kills every rank; nothing else changes
        case Remedy::launch_without_resume:
            if (launch.trainer.resume_from_checkpoint == ResumeArgument::last_checkpoint_path) {
                return false;
            }
            launch.trainer.resume_from_checkpoint = ResumeArgument::last_checkpoint_path;
            return true;
        case Remedy::resume_with_saved_settings: {
            // Only the change the refusal names: the other may already be what the checkpoints hold.
            auto& change = launch.callbacks.resume_change;
            if (failure.find("EarlyStoppingCallback") != std::string_view::npos) {
                const bool changed = change.early_stopping.has_value();
                change.early_stopping.reset();
                return changed;
            }
            const bool changed = change.policy.has_value();
            change.policy.reset();
            return changed;
        }
        case Remedy::delete_incomplete_checkpoint:
        case Remedy::delete_unloadable_checkpoint:
        case Remedy::delete_damaged_sidecar:
            if (path.rfind(std::string(kOutputDir) + "/", 0) != 0 || !fs.exists_in(FsView::visible, path)) {
                return false;
            }
            if (fs.is_dir_in(FsView::visible, path)) {
                fs.remove_tree(path);
            } else {
                fs.unlink(path);
            }
            // Minutes pass before an operator acts and `rm` is followed by the kernel's writeback:
            // the deletion is durable, so no power loss brings back what the operator removed.
            fs.fsync_dir(kOutputDir);
            return true;
    }
    return false;
}

}  // namespace ckpt::sim
