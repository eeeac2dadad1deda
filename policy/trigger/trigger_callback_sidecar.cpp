// TriggerCallback's sidecar I/O (trigger_callback.hpp): the atomic write, the adoption of a sidecar
// on restore, and the removal of leftover temp files and of a sidecar refused as an abandoned
// history's.
#include <unistd.h>

#include "policy/base/mutants.hpp"
#include "policy/formats/sidecar_format.hpp"
#include "policy/output_dir/atomic_write.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/trigger/sidecar_adoption.hpp"
#include "policy/trigger/trigger_callback.hpp"

namespace ckpt {

using mutants::Mutant;

// ---- the sidecar ---------------------------------------------------------------------------

std::string TriggerCallback::next_temp_path(const std::string& path) {
    // Unique per write within a process, and per process through the tag; a leftover from a
    // killed writer is removed by rank 0 in on_train_begin.
    temp_counter_ += 1;
    const auto tag = config_.temp_file_tag.empty() ? std::to_string(::getpid()) : config_.temp_file_tag;
    return join_path(parent_path(path),
                     std::string(kSidecarTempPrefix) + tag + "-" + std::to_string(temp_counter_));
}

std::optional<std::string> TriggerCallback::persist(std::optional<bool> is_world_process_zero) {
    const bool is_main = is_world_process_zero ? *is_world_process_zero : is_rank_zero();
    const auto path = state_path();
    if (!is_main || !path) {
        return std::nullopt;
    }
    make_dirs(*fs_, *config_.output_dir);
    // Written as text directly, in the seed's exact json.dump(indent=2, sort_keys=True) layout.
    write_file_atomically(*fs_, *path, next_temp_path(*path),
                          sidecar_text(policy_, last_evaluated_step_, config_.sidecar_version));
    sidecar_abandoned_ = false;
    return path;
}

bool TriggerCallback::load(std::optional<bool> is_world_process_zero) {
    const bool is_main = is_world_process_zero ? *is_world_process_zero : is_rank_zero();
    const auto path = state_path();
    if (!is_main || !path) {
        return false;
    }
    sidecar_abandoned_ = false;
    const auto document = read_sidecar(*fs_, *path);
    if (document.shape == SidecarShape::missing) {
        return false;
    }
    document.throw_if_malformed(*path);
    if (document.version_on_disk == kSeedSidecarVersion && mutants::is_active(Mutant::seed_sidecar_ignored)) {
        return false;
    }
    // A candidate policy keeps a bad sidecar from touching the live one.
    CheckpointEvaluationPolicy candidate(policy_.settings());
    candidate.load_state_dict(*document.policy_state());
    const auto verdict = judge_sidecar_adoption(*fs_, *config_.output_dir, candidate.state(),
                                                policy_.state().evaluation_count);
    if (verdict != SidecarAdoption::adopted) {
        // An abandoned history's sidecar, left on disk, would be adopted by a later resume once
        // this history rewrote its best checkpoint with the same step and score but had not yet
        // written a sidecar of its own (finding 27: a failed publication between the two).
        sidecar_abandoned_ =
            verdict == SidecarAdoption::uncommitted_best || verdict == SidecarAdoption::best_mismatch;
        return false;
    }
    policy_ = candidate;
    last_evaluated_step_ = document.last_evaluated_step();
    return true;
}

void TriggerCallback::remove_leftover_temp_files() {
    if (!config_.output_dir || !fs_->is_dir(*config_.output_dir)) {
        return;
    }
    bool removed = false;
    for (const auto& name : fs_->list_dir(*config_.output_dir)) {
        if (is_leftover_temp_name(name)) {
            fs_->unlink(join_path(*config_.output_dir, name));
            removed = true;
        }
    }
    if (removed) {
        fs_->fsync_dir(*config_.output_dir);
    }
}

// Removed, not rewritten: a sidecar of the restored state would carry no replay horizon, and a
// power loss that then took an unsynced resume checkpoint would let an older resume adopt it and
// count the steps between again. A missing sidecar is never adopted. After the link's repair, so
// no crash point here finds final_checkpoint naming the lost best; on rank 0, inside the
// recovery's envelope, so an I/O error fails every rank alike.
void TriggerCallback::remove_abandoned_sidecar() {
    const auto path = state_path();
    if (sidecar_abandoned_ && path && !mutants::is_active(Mutant::abandoned_sidecar_kept) &&
        fs_->exists(*path)) {
        fs_->unlink(*path);
        fs_->fsync_dir(*config_.output_dir);
    }
    sidecar_abandoned_ = false;
}

}  // namespace ckpt
