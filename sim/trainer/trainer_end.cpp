// The end of Transformers' _inner_training_loop after the epoch loop: load_best_model_at_end's
// barrier and load of best_model_checkpoint, then the clean-up that, with save_total_limit == 1,
// deletes every checkpoint but the best. A torn best fails the job as the load would; a missing
// one only warns (as Transformers does), but the clean-up's os.path.samefile then raises.
#include "policy/ports/file_system_error.hpp"
#include "sim/events/job_constants.hpp"
#include "sim/trainer/rank_failure.hpp"
#include "sim/trainer/rank_trainer.hpp"
#include "sim/trainer/saved_weights.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"

namespace ckpt::sim {

std::optional<std::int64_t> RankTrainer::best_model_checkpoint_step() const {
    if (!best_.best_model_checkpoint) {
        return std::nullopt;
    }
    const std::string_view path = *best_.best_model_checkpoint;
    const auto slash = path.rfind('/');
    return transformers::checkpoint_step(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

void RankTrainer::end_of_training() {
    if (job_.scenario.trainer.load_best_model_at_end && best_.best_model_checkpoint) {
        collective_.set_waiting_point("load_best_model_at_end");
        collective_.barrier();
        load_best_model();
    }
    if (should_save() && best_.best_model_checkpoint && job_.scenario.trainer.save_total_limit == 1) {
        delete_all_but_best_checkpoint();
    }
}

void RankTrainer::load_best_model() {
    const auto& directory = *best_.best_model_checkpoint;
    const auto error = transformers::weights_load_error(job_.fs, directory);
    const bool found = !error || !error->starts_with("ValueError");
    if (is_rank_zero()) {
        emit(BestModelLoading{best_model_checkpoint_step().value_or(-1), found});
    }
    // "Could not locate the best model at ...": a warning, training ends with the last weights.
    if (found && error) {
        throw BestModelLoadFailed(*error);
    }
}

void RankTrainer::delete_all_but_best_checkpoint() {
    const auto& best = *best_.best_model_checkpoint;
    if (!job_.fs.is_dir_in(FsView::visible, best)) {
        // os.path.samefile(checkpoint, best) stats both paths.
        throw BestModelLoadFailed("FileNotFoundError: [Errno 2] No such file or directory: '" + best + "'");
    }
    emit(RotationStarted{});
    for (const auto& entry : transformers::checkpoints_by_step(job_.fs, kOutputDir)) {
        if (join_path(kOutputDir, entry.name) == best) {
            continue;
        }
        emit(CrashPointPassed{CrashPoint::during_rotation, rank_});
        try {
            job_.fs.remove_tree(join_path(kOutputDir, entry.name));  // rmtree(ignore_errors=True)
        } catch (const FileSystemError&) {
        }
    }
}

}  // namespace ckpt::sim
