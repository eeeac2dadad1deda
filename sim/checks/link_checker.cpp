// P1 and P4 over the ledger's link record and the visible disk; re-checks the link at a crash
// point only when the disk changed since the last check, which keeps every passage cheap.
#include "sim/checks/link_checker.hpp"

#include <string>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

// With save_total_limit 1 and no protection of the best, rotation inside _save_checkpoint must
// remove the linked best before the new checkpoint is durable: the seed's known exposure. Under
// any other limit rotation keeps it (finding 24's refusal covers the stale best that would not).
bool rotation_removes_the_best(const TrainerOptions& trainer) noexcept {
    return trainer.save_total_limit == 1 && !trainer.protect_best_in_rotation;
}

}  // namespace

using nlohmann::json;

void LinkChecker::on(const LinkPublished& e) {
    commit_linked_ = commit_linked_ || in_commit_;
    const auto& ledger = context_.ledger;
    const auto step = e.step;
    // The score survives the record's retirement (LedgerWriter::retire_unreachable_checkpoints).
    const auto score = written_score(ledger, step);
    if (!score) {
        context_.violate(Property::P4, "final_checkpoint published to checkpoint-" + std::to_string(step) +
                                           ", which was never written");
        return;
    }
    // on_save publishes after its barrier, so every rank's files must be there. Recovery in
    // on_train_begin may publish a checkpoint a crashed rank never finished: complete (its
    // trainer_state.json is whole) is all the seed's design promises there.
    // Under save_only_model no rank writes a file of its own: complete is all there is to see.
    const bool committing = context_.save_window.in_on_save() && !context_.scenario.trainer.save_only_model;
    if (committing ? !checkpoint_has_every_shard(context_.fs, ledger, context_.scenario.job.ranks, step)
                   : !checkpoint_is_complete(context_.fs, ledger, step)) {
        context_.violate(Property::P4,
                         "final_checkpoint published to checkpoint-" + std::to_string(step) + " before " +
                             (committing ? "every rank finished writing it" : "it was complete"));
    }
    if (ledger.link_step && *ledger.link_step != step) {
        const bool target_lost = ledger.link_target_damaged || lost_in_save_window_ == ledger.link_step;
        if (!target_lost && !(*score > ledger.link_score)) {
            context_.violate(Property::P1, "final_checkpoint moved from checkpoint-" +
                                               std::to_string(*ledger.link_step) + " (score " +
                                               json(ledger.link_score).dump() + ") to checkpoint-" +
                                               std::to_string(step) + " (score " + json(*score).dump() + ")");
        }
    }
}

void LinkChecker::on(const IncarnationBegan&) {
    link_checked_at_ops_ = UINT64_MAX;
    in_commit_ = false;
    // With save_total_limit 1 and no protection of the best, rotation inside _save_checkpoint must
    // remove the linked best before the new checkpoint is durable: the seed's known exposure,
    // counted as save_window_dangling. A crash in that window (it is still open: no on_train_begin
    // has run since) can leave nothing that holds the linked score, and the next link is then not
    // a move away from a best that still exists. With a larger limit, rotation keeps the linked
    // best unless something else is wrong, so a loss there is still judged. Judged on the disk the
    // resume sees.
    const auto& ledger = context_.ledger;
    const auto& trainer = context_.scenario.trainer;
    if (rotation_removes_the_best(trainer) && context_.save_window.open() && ledger.link_step &&
        !checkpoint_is_complete(context_.fs, ledger, *ledger.link_step)) {
        lost_in_save_window_ = ledger.link_step;
    }
}

void LinkChecker::on(const SaveCallbackStarted& e) noexcept {
    if (e.rank == 0) {
        in_commit_ = true;
        commit_linked_ = false;
        commit_sidecar_before_link_ = false;
    }
}

void LinkChecker::on(const Committed& e) {
    in_commit_ = false;
    if (!commit_linked_ || commit_sidecar_before_link_) {
        context_.violate(Property::P4,
                         "the commit of checkpoint-" + std::to_string(e.step) +
                             (commit_linked_ ? " wrote the sidecar before it renamed final_checkpoint"
                                             : " never renamed final_checkpoint"));
    }
}

void LinkChecker::rank_zero_crash_point(CrashPoint point) {
    // The callback's sidecar operations pass this point just before they happen.
    if (in_commit_ && point == CrashPoint::inside_sidecar_write && !commit_linked_) {
        commit_sidecar_before_link_ = true;
    }
    const auto& fs = context_.fs;
    // Re-check only when the visible view changed since the last check: most passages are plain
    // steps, and a read changes nothing.
    const auto changes = fs.stats().changes_to(FsView::visible);
    const bool fresh = changes != link_checked_at_ops_;
    if (fresh) {
        link_checked_at_ops_ = changes;
        // One lookup of the link serves both questions (visible_link_step is this parse of it).
        static const std::string link = join_path(kOutputDir, kFinalCheckpointLink);
        const auto target = fs.link_target_in(FsView::visible, link);
        const auto step = target ? parse_checkpoint_step(*target) : std::nullopt;
        link_check_was_ok_ = !target || (step && checkpoint_is_complete(fs, context_.ledger, *step));
        link_checked_step_ = step;
    }
    // A target an injected fault destroyed is excused until the next publication, and is not the
    // save window's doing either, so it is neither a violation nor counted as exposure.
    if (link_check_was_ok_ || context_.ledger.link_target_damaged) {
        return;
    }
    const auto& trainer = context_.scenario.trainer;
    if (context_.save_window.open() && rotation_removes_the_best(trainer)) {
        save_window_dangling_ += 1;  // the seed's known exposure, measured not failed
        return;
    }
    if (!fresh) {
        return;  // already reported for this state of the disk
    }
    context_.violate(
        Property::P4,
        "final_checkpoint names " +
            (link_checked_step_ ? "checkpoint-" + std::to_string(*link_checked_step_)
                                : std::string("a non-checkpoint")) +
            (context_.save_window.open()
                 ? ", which is not complete, in a save window whose rotation keeps it (save_total_limit " +
                       std::to_string(trainer.save_total_limit) + ")"
                 : ", which is not complete, outside the save window"));
}

// The best is the ledger's, not the one the policy ends with.
void LinkChecker::on(const JobFinished&) {
    in_commit_ = false;
    if (context_.ledger.prior_unknown) {
        return;
    }
    const auto& final_state = context_.ledger.current_state;
    if (!final_state.best_step || final_state.best_is_external) {
        return;
    }
    const auto link = visible_link_step(context_.fs);
    if (link != final_state.best_step) {
        context_.violate(Property::P4,
                         "at the end final_checkpoint names " +
                             (link ? "checkpoint-" + std::to_string(*link) : std::string("nothing")) +
                             ", not the retained best checkpoint-" + std::to_string(*final_state.best_step));
        return;
    }
    check_retention_at_end(*link);
}

void LinkChecker::check_retention_at_end(std::int64_t link) {
    const auto& fs = context_.fs;
    const auto& ledger = context_.ledger;
    double best_recorded = -1e300;
    std::int64_t best_recorded_step = -1;
    for (const auto& [step, record] : ledger.checkpoints) {
        if (record_intact(fs, ledger, record) && record.score > best_recorded) {
            best_recorded = record.score;
            best_recorded_step = step;
        }
    }
    const auto linked_score = written_score(ledger, link);  // a retired target keeps its score
    if (best_recorded_step >= 0 && (!linked_score || *linked_score < best_recorded)) {
        context_.violate(Property::P1, "at the end final_checkpoint names checkpoint-" +
                                           std::to_string(link) + " but checkpoint-" +
                                           std::to_string(best_recorded_step) + " recorded a higher score " +
                                           json(best_recorded).dump());
    }
    if (context_.scenario.trainer.save_total_limit != 1) {
        return;
    }
    // Through the inspection view: the checker must not issue operations a fault could hit.
    const std::string prefix = std::string(kOutputDir) + "/";
    for (const auto& path : fs.list_recursive(FsView::visible)) {
        if (path.rfind(prefix, 0) != 0 || path.find('/', prefix.size()) != std::string::npos) {
            continue;
        }
        const auto step = parse_checkpoint_step(std::string_view(path).substr(prefix.size()));
        if (step && *step != link && checkpoint_is_complete(fs, ledger, *step)) {
            context_.violate(Property::P1, "save_total_limit is 1 but complete checkpoint-" +
                                               std::to_string(*step) +
                                               " is kept beside the best checkpoint-" + std::to_string(link));
            break;
        }
    }
}

}  // namespace ckpt::sim
