// The link's judgement, built on the same layout and completeness rules the callback uses, so
// inspect and the callback cannot disagree on what "complete" means.
#include "policy/inspect/final_checkpoint_inspection.hpp"

#include "policy/output_dir/checkpoint_completeness.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"

namespace ckpt {

FinalCheckpointVerdict inspect_final_checkpoint(FileSystem& fs, const std::string& output_dir,
                                                std::optional<std::int64_t> retained_best) {
    FinalCheckpointVerdict verdict;
    const std::string name(kFinalCheckpointLink);
    const auto link = join_path(output_dir, kFinalCheckpointLink);
    // Every broken state is repaired by the next resume's on_train_begin when the best is
    // complete; saying so, and giving the one-line fix, is what makes the report actionable.
    const std::string fix = retained_best
                                ? " A resume re-points it at " + checkpoint_dir_name(*retained_best) +
                                      " in on_train_begin; to fix it now: ln -sfn " +
                                      checkpoint_dir_name(*retained_best) + " " + link
                                : std::string();
    auto problem = [&](const char* kind, const std::string& message) {
        verdict.problems.push_back({kind, message});
    };

    if (!fs.is_symlink(link)) {
        if (fs.exists(link)) {
            problem("link_not_symlink", name +
                                            " exists but is not a symlink, so the callback cannot replace it "
                                            "atomically; move it aside.");
        } else if (retained_best) {
            problem("link_missing", name + " is missing although " + checkpoint_dir_name(*retained_best) +
                                        " is the retained best." + fix);
        }
        return verdict;
    }
    verdict.status.target = fs.readlink(link);
    const auto quoted = "'" + *verdict.status.target + "'";
    if (!fs.exists(link)) {
        problem("dangling_link", name + " points at " + quoted +
                                     ", which does not exist: loading final_checkpoint fails." + fix);
        return verdict;
    }
    const auto step = final_checkpoint_step(fs, output_dir);
    if (!step) {
        problem("link_foreign", name + " points at " + quoted +
                                    ", which is not a checkpoint-N directory of this output directory." +
                                    fix);
        return verdict;
    }
    if (!is_complete_checkpoint(fs, output_dir, *step)) {
        problem("link_incomplete", name + " points at " + quoted + ", which is not a complete checkpoint: " +
                                       why_checkpoint_is_incomplete(fs, output_dir, *step) + "." + fix);
        return verdict;
    }
    verdict.status.valid = true;
    if (retained_best && *step != *retained_best) {
        problem("link_not_best", name + " points at " + quoted + " but the retained best is " +
                                     checkpoint_dir_name(*retained_best) + "." + fix);
    }
    return verdict;
}

}  // namespace ckpt
