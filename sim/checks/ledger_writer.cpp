// The ledger's one writer: each handler records an observation of the disk or of an event the
// simulator owns, or decides an evaluation through reference_policy; none of them checks a
// property.
#include "sim/checks/ledger_writer.hpp"

#include <algorithm>
#include <cmath>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"
#include "sim/checks/reference_policy.hpp"
#include "sim/checks/sidecar_oracle_format.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

void LedgerWriter::on(const IncarnationBegan& e) {
    incarnation_ = e.incarnation;
    settle_link();
    // Judged before any rank touches the disk: what is visible now is what the resume reads.
    ledger_.expected_node = expected_restored_node(fs_, ledger_, e.resume_step);
    ledger_.expected_state = node_state(ledger_, ledger_.expected_node.value_or(kRootNode));
    ledger_.current_node = ledger_.expected_node.value_or(kRootNode);
    ledger_.current_state = ledger_.expected_state;
    // The scenario's release writes a version 1 sidecar in its first incarnation only when it
    // declares an upgrade across the resume (sidecar_version_written).
    const std::optional<int> upgrade_incarnation =
        callbacks_ != nullptr && callbacks_->upgraded_across_resume ? std::optional<int>(1) : std::nullopt;
    auto known =
        known_history(fs_, ledger_, e.resume_step, ledger_.current_node, e.incarnation, upgrade_incarnation);
    ledger_.restored_from_seed_sidecar = known.seed_sidecar;
    ledger_.restored_counted_steps = std::move(known.counted_steps);
    ledger_.prior_unknown = !ledger_.expected_node;
    ledger_.last_decision.reset();
    ledger_.previous_decision.reset();
    ledger_.save_due_step.reset();
}

void LedgerWriter::on(const BaselineEstablished& e) {
    ledger_.current_state = reference_baseline(ledger_.current_state, e.score, 0);
}

// The rules decide from the ledger's own prior, so a policy that restored, drifted or decided
// wrongly is judged by what it then does, not by what it says it holds.
void LedgerWriter::on(const EvaluationScored& e) {
    const auto outcome = reference_observe(settings_, ledger_.current_state, e.score, e.step);
    ledger_.evaluations.push_back({ledger_.current_node, e.step, e.score, outcome.after, incarnation_});
    ledger_.current_node = static_cast<int>(ledger_.evaluations.size()) - 1;
    ledger_.previous_decision = ledger_.last_decision;
    ledger_.last_decision = LedgerDecision{e.round,
                                           e.step,
                                           e.score,
                                           outcome.reason,
                                           outcome.should_save,
                                           outcome.should_stop,
                                           ledger_.current_state};
    ledger_.current_state = outcome.after;
    ledger_.save_due_step = outcome.should_save ? std::optional<std::int64_t>(e.step) : std::nullopt;
}

// The durability contract's deadlines (docs/properties.md): a decision without a save is durable
// once rank 0's on_evaluate returned, a save's once its on_save returned. The sidecar is read
// there whether or not the code wrote anything; the checkers judge what was read.
void LedgerWriter::on(const EvaluationReturned& e) {
    if (e.rank == 0 && ledger_.last_decision && !ledger_.last_decision->should_save) {
        read_sidecar_at_deadline();
    }
}

void LedgerWriter::on(const SaveCallbackReturned& e) {
    if (ledger_.save_due_step == e.step) {
        read_sidecar_at_deadline();
        ledger_.save_due_step.reset();
    }
}

// Only a durable sidecar holding the ledger's state is durably recorded.
void LedgerWriter::read_sidecar_at_deadline() {
    ++ledger_.sidecar_deadlines;
    static const std::string path = join_path(kOutputDir, kSidecarName);
    auto bytes = fs_.durable_content(path);
    if (!read_sidecar_as_laid_out(bytes)) {
        ledger_.sidecar_after_write = read_sidecar_bytes(std::move(bytes));
    }
    const auto& sidecar = ledger_.sidecar_after_write;
    if (sidecar.state && *sidecar.state == ledger_.current_state) {
        ledger_.sidecar = SidecarRecord{ledger_.current_state, *sidecar.bytes, ledger_.current_node};
        ledger_.sidecar_damaged = false;
    }
}

// Almost every deadline finds exactly the bytes the checkers' own writer lays out for the
// ledger's state and the decision's step: comparing them costs far less than scanning them, and
// their reading is known (reading_of_laid_out_sidecar). Any other bytes are read in full.
bool LedgerWriter::read_sidecar_as_laid_out(std::optional<std::string>& bytes) {
    const auto& state = ledger_.current_state;
    if (callbacks_ == nullptr || !bytes || !ledger_.last_decision ||
        (state.best_score && !std::isfinite(*state.best_score))) {
        return false;
    }
    const auto step = ledger_.last_decision->step;
    const int version = sidecar_version_written(*callbacks_, incarnation_);
    if (*bytes != oracle_sidecar_text(settings_, state, step, version)) {
        return false;
    }
    ledger_.sidecar_after_write =
        reading_of_laid_out_sidecar(std::move(*bytes), settings_, state, step, version);
    return true;
}

void LedgerWriter::on(const RecoveryFinished&) {
    const auto bytes = fs_.durable_content(join_path(kOutputDir, kSidecarName));
    if (!bytes || (ledger_.sidecar && ledger_.sidecar->bytes == *bytes)) {
        return;
    }
    // read_state of the document's checkpoint_eval_state, read without building the document.
    if (const auto state = read_sidecar_bytes(bytes).state) {
        ledger_.sidecar = SidecarRecord{*state, *bytes, ledger_.current_node};
        ledger_.sidecar_damaged = false;
    }
}

void LedgerWriter::on(const TrainerStateWritten& e) {
    const auto path = trainer_state_path(e.step);
    const bool durable = fs_.content_equals(FsView::durable, path, e.bytes);
    ledger_.checkpoint_damaged.erase(e.step);
    auto& record = ledger_.checkpoints[e.step];
    // The second report of one write (once fsynced) only changes durability: comparing is
    // cheaper than copying the bytes again. The record shares the trainer's export, so that
    // report hands over the very same states and only another export is compared member-wise.
    const bool same_write =
        record.step == e.step && record.incarnation == incarnation_ && record.score == e.score &&
        record.trainer_state_bytes.equals(e.bytes) && record.policy_state == ledger_.current_state &&
        (record.callback_states == e.callback_states ||
         (record.callback_states != nullptr && *record.callback_states == *e.callback_states)) &&
        record.node == ledger_.current_node;
    if (!same_write) {
        const bool another_node = record.step == e.step && record.incarnation == incarnation_ &&
                                  record.writer_rank != e.rank && !record.trainer_state_bytes.equals(e.bytes);
        FileBytes other_node_bytes = another_node ? std::move(record.trainer_state_bytes) : FileBytes();
        record = CheckpointRecord{
            e.step, incarnation_,         e.score, ledger_.current_state,      e.callback_states, e.bytes,
            false,  ledger_.current_node, e.rank,  std::move(other_node_bytes)};
        forget_retired(e.step);
        retire_unreachable_checkpoints(e.step);
    }
    record.durable = durable;
}

// A record may go once no checker can consult it again. Every reader of ledger.checkpoints
// either compares the record's bytes with what a view shows at checkpoint-N/trainer_state.json
// (disk_truth's checkpoint_is_complete, record_intact and expected_floor, lineage's
// visible_checkpoint, the callbacks checker's restore, the retained-best checker's view reading,
// the link checker's end-of-run retention, the fault plan's newest complete checkpoint), or
// reads the score only after such a comparison held (the commit checker's restored best), or
// names the step of a published link (the link checker, this writer), which reads
// written_score and so the kept summary. Once entry_may_exist says that no view, now or after
// any power loss, can hold an entry named checkpoint-N, every comparison finds nothing with or
// without the record; a later write of checkpoint-N (a resumed branch) makes a new record.
// Kept besides, though no check reads them there: the checkpoint just written, the one
// final_checkpoint names or is being renamed to, and the sidecar's best.
void LedgerWriter::retire_unreachable_checkpoints(std::int64_t written_step) {
    // Only a removal (or a power loss) makes a checkpoint directory vanish from the visible view,
    // so the whole ledger is scanned only after one; in between, only the records already gone
    // from it are looked at again. A run that keeps every checkpoint never scans.
    const auto& stats = fs_.stats();
    const std::uint64_t removals = stats.count(FsOp::unlink) + stats.count(FsOp::rmdir) +
                                   stats.count(FsOp::remove_tree) + stats.count(FsOp::rename) +
                                   stats.power_losses;
    if (removals != removals_seen_) {
        removals_seen_ = removals;
        retire_candidates_.clear();
        for (const auto& [step, record] : ledger_.checkpoints) {
            if (!fs_.exists_in(FsView::visible, checkpoint_path(step))) {
                retire_candidates_.push_back(step);
            }
        }
    }
    std::erase_if(retire_candidates_,
                  [&](std::int64_t step) { return retire_if_unreachable(step, written_step); });
}

// True when checkpoint-`step` has no record left (it was retired now or before).
bool LedgerWriter::retire_if_unreachable(std::int64_t step, std::int64_t written_step) {
    const auto record = ledger_.checkpoints.find(step);
    if (record == ledger_.checkpoints.end()) {
        return true;
    }
    const bool named = step == written_step || ledger_.link_step == step ||
                       (ledger_.pending_link && ledger_.pending_link->first == step) ||
                       (ledger_.sidecar && ledger_.sidecar->state.best_step == step);
    const auto directory = checkpoint_path(step);
    if (named || fs_.exists_in(FsView::visible, directory) || fs_.exists_in(FsView::durable, directory) ||
        fs_.entry_may_exist(checkpoint_dir_name(step))) {
        return false;
    }
    ledger_.retired_scores.insert(retired_score_at(ledger_.retired_scores, step),
                                  {step, record->second.score});
    ledger_.checkpoint_damaged.erase(step);
    ledger_.checkpoints.erase(record);
    ++ledger_.retirements;
    return true;
}

void LedgerWriter::forget_retired(std::int64_t step) {
    const auto at = retired_score_at(ledger_.retired_scores, step);
    if (at != ledger_.retired_scores.end() && at->first == step) {
        ledger_.retired_scores.erase(at);
    }
}

void LedgerWriter::on(const LinkPublished& e) {
    settle_link();
    if (const auto score = written_score(ledger_, e.step)) {
        ledger_.pending_link = std::make_pair(e.step, *score);
    }
}

// What an operator deleted is gone from every view: a deleted sidecar holds no record and is no
// longer damaged; a deleted checkpoint's record retires with the next write.
void LedgerWriter::on(const OperatorRemedied& e) {
    if (e.path == join_path(kOutputDir, kSidecarName)) {
        ledger_.sidecar.reset();
        ledger_.sidecar_damaged = false;
    }
}

void LedgerWriter::on(const SidecarCorrupted&) {
    ledger_.sidecar_damaged = true;
}

void LedgerWriter::on(const CheckpointCorrupted& e) {
    ledger_.checkpoint_damaged[e.step] = true;
    if (ledger_.link_step == e.step) {
        ledger_.link_target_damaged = true;
    }
}

void LedgerWriter::settle_link() {
    if (!ledger_.pending_link) {
        return;
    }
    const auto [step, score] = *ledger_.pending_link;
    ledger_.pending_link.reset();
    if (visible_link_step(fs_) == step) {
        ledger_.link_step = step;
        ledger_.link_score = score;
        ledger_.link_target_damaged = false;
    }
}

}  // namespace ckpt::sim
