// The disk invariant of retained_best_checker.hpp. Each view is read only when it changed since
// its last check (FsStats::changes_to), so a plain training step costs two small sums. The resume rule and
// completeness are restated here; nothing of policy/output_dir is called.
#include "sim/checks/retained_best_checker.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "sim/checks/disk_truth.hpp"
#include "sim/checks/retention_checker.hpp"  // checkpoint_step_of
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

constexpr const char* kTrainerState = "trainer_state.json";
constexpr const char* kLinkName = "final_checkpoint";

const char* view_name(FsView view) {
    return view == FsView::visible ? "visible" : "durable";
}

}  // namespace

void RetainedBestChecker::on(const IncarnationBegan& e) {
    recovery_ran_ = false;
    reported_ = false;
    if (e.incarnation == 0 || context_.save_window.open() || repair_pending_) {
        return;  // a crash inside the window, or a failed publication, is recovery's to repair
    }
    // The disk as the crash left it (after a power loss: what survived), before any rank runs.
    for (const auto view : {FsView::visible, FsView::durable}) {
        checked_at_[static_cast<std::size_t>(view)] = context_.fs.stats().changes_to(view);
        check_view(view, false, "the restart");
    }
}

void RetainedBestChecker::on(const CheckpointStarted& e) {
    unpublished_ = e.step;
    know(e.step);
}

// Under save_on_each_node another node writes the checkpoint too, maybe before rank 0 begins it
// (or when rank 0, dead, never does): it is unpublished until rank 0 commits it.
void RetainedBestChecker::on(const TrainerStateWritten& e) {
    if (e.rank != 0) {
        unpublished_ = e.step;
    }
    know(e.step);
}

void RetainedBestChecker::know(std::int64_t step) {
    const auto at =
        std::lower_bound(known_.begin(), known_.end(), step,
                         [](const KnownCheckpoint& k, std::int64_t known) { return k.step < known; });
    if (at == known_.end() || at->step != step) {
        auto directory = checkpoint_path(step);
        auto state = directory + "/" + kTrainerState;
        known_.insert(at, KnownCheckpoint{step, std::move(directory), std::move(state)});
    }
}

void RetainedBestChecker::on(const Committed& e) noexcept {
    if (unpublished_ == e.step) {
        unpublished_.reset();
    }
}

// Recovery republished the checkpoint the resume restored as best, or found nothing to publish.
void RetainedBestChecker::on(const TrainBegan&) noexcept {
    unpublished_.reset();
    recovery_ran_ = true;
    repair_pending_ = false;
    checked_at_ = {UINT64_MAX, UINT64_MAX};
}

void RetainedBestChecker::rank_zero_crash_point(CrashPoint point) {
    if (context_.save_window.open() || repair_pending_) {
        return;
    }
    for (const auto view : {FsView::visible, FsView::durable}) {
        const auto signature = context_.fs.stats().changes_to(view);
        auto& checked = checked_at_[static_cast<std::size_t>(view)];
        // Else nothing changed in this view since it was judged. Once this incarnation reported,
        // a check can report nothing more (report() says so), so only the signature is kept.
        if (signature != checked) {
            checked = signature;
            if (!reported_) {
                check_view(view, recovery_ran_, to_string(point));
            }
        }
    }
}

// The known checkpoints that may be directories of the view, ascending: those the output
// directory's listing (through any link, as read_view's is_dir_in) names, so a check costs what
// the disk holds, not every checkpoint the run ever began.
const std::vector<const RetainedBestChecker::KnownCheckpoint*>& RetainedBestChecker::candidates_in(
    FsView view) {
    auto& candidates = candidates_;
    candidates.clear();
    const std::size_t name_at = std::string_view(kOutputDir).size() + 1;
    for (const auto name : context_.fs.entry_names_in(view, kOutputDir)) {
        const auto step = checkpoint_step_of(name);
        if (!step) {
            continue;
        }
        const auto at = std::lower_bound(known_.begin(), known_.end(), *step,
                                         [](const KnownCheckpoint& k, std::int64_t s) { return k.step < s; });
        if (at != known_.end() && at->step == *step &&
            std::string_view(at->directory).substr(name_at) == name) {
            candidates.push_back(&*at);
        }
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const KnownCheckpoint* a, const KnownCheckpoint* b) { return a->step < b->step; });
    return candidates;
}

void RetainedBestChecker::read_view(FsView view) {
    const auto& fs = context_.fs;
    const auto& ledger = context_.ledger;
    auto& reading = reading_;
    reading.directories.clear();
    reading.complete.clear();
    reading.survivors.clear();
    for (const auto* candidate : candidates_in(view)) {
        const auto& known = *candidate;
        const auto step = known.step;
        const auto record = ledger.checkpoints.find(step);
        const auto damaged = ledger.checkpoint_damaged.find(step);
        const bool recorded = record != ledger.checkpoints.end() &&
                              (damaged == ledger.checkpoint_damaged.end() || !damaged->second) &&
                              record->second.held_in(fs, view, known.trainer_state);
        // A file found inside the directory proves it one (the lookup resolved it as a directory,
        // links followed as is_dir_in follows them): only the others need asking.
        if (!recorded && !fs.is_dir_in(view, known.directory)) {
            continue;
        }
        reading.directories.push_back(step);
        if (recorded) {
            reading.complete.push_back(step);
            reading.survivors.push_back({step, record->second.score});
        } else if (const auto bytes = fs.content_in(view, known.trainer_state);
                   bytes && trainer_state_names_step(*bytes, step)) {
            reading.complete.push_back(step);
        }
    }
    static const std::string link = std::string(kOutputDir) + "/" + kLinkName;
    reading.link_target = fs.link_target_in(view, link);
}

void RetainedBestChecker::check_view(FsView view, bool recovery_ran, std::string_view where) {
    read_view(view);
    const auto& reading = reading_;
    check_link(reading, view, recovery_ran, where);
    check_kept(reading, view, where);
    check_resume_source(reading, view, where);
}

// final_checkpoint, when present, names a surviving recorded checkpoint (before recovery ran a
// dangling one is recovery's to drop), and none of the published survivors scored higher.
void RetainedBestChecker::check_link(const ViewReading& reading, FsView view, bool recovery_ran,
                                     std::string_view where) {
    if (!reading.link_target) {
        return;  // the seed never relinks an older checkpoint once its target is gone
    }
    const auto step = checkpoint_step_of(*reading.link_target);
    const auto linked = std::find_if(reading.survivors.begin(), reading.survivors.end(),
                                     [&](const Survivor& s) { return step && s.step == *step; });
    if (linked == reading.survivors.end()) {
        if (recovery_ran && !context_.ledger.link_target_damaged) {
            report(view, where,
                   "final_checkpoint names " + *reading.link_target +
                       ", which is not a surviving recorded checkpoint (a power loss now would leave it)");
        }
        return;
    }
    for (const auto& survivor : reading.survivors) {
        if (survivor.step != unpublished_ && survivor.score > linked->score) {
            report(view, where,
                   "final_checkpoint names checkpoint-" + std::to_string(linked->step) + " (score " +
                       json(linked->score).dump() + ") but surviving checkpoint-" +
                       std::to_string(survivor.step) + " recorded the higher score " +
                       json(survivor.score).dump());
            return;
        }
    }
}

// The link helper keeps, of the checkpoints up to its target, the target and the newest
// save_total_limit - 1 older ones; a checkpoint newer than the target is not yet published.
void RetainedBestChecker::check_kept(const ViewReading& reading, FsView view, std::string_view where) {
    if (!reading.link_target) {
        return;
    }
    const auto target = checkpoint_step_of(*reading.link_target);
    if (!target ||
        std::find(reading.complete.begin(), reading.complete.end(), *target) == reading.complete.end()) {
        return;
    }
    const auto limit = context_.scenario.trainer.save_total_limit;
    const auto kept = std::count_if(reading.complete.begin(), reading.complete.end(),
                                    [&](std::int64_t step) { return step <= *target; });
    if (kept > limit) {
        report(view, where,
               std::to_string(kept) + " complete checkpoints up to final_checkpoint's checkpoint-" +
                   std::to_string(*target) + " are kept with save_total_limit " + std::to_string(limit));
    }
}

// What a resume would load (the newest checkpoint-N directory under Transformers' rule, the
// newest complete one under the fixed rule) carries as its best the best that survives.
void RetainedBestChecker::check_resume_source(const ViewReading& reading, FsView view,
                                              std::string_view where) {
    const auto& pool = context_.scenario.trainer.resume_rule == ResumeRule::transformers ? reading.directories
                                                                                         : reading.complete;
    if (pool.empty() || reading.survivors.empty()) {
        return;
    }
    const auto source = pool.back();
    const auto record = context_.ledger.checkpoints.find(source);
    const bool recorded = std::any_of(reading.survivors.begin(), reading.survivors.end(),
                                      [&](const Survivor& s) { return s.step == source; });
    if (!recorded) {
        return;  // an incomplete or unrecorded source: the resume's own checks judge it
    }
    // Its bytes are the recorded ones (one node's whole write, or two nodes' interleaved, whose
    // best fields precede where the writes differ), whose best_metric the write-time check
    // compared with this same ledger best: no parse is needed to know it.
    const auto& best = record->second.policy_state.best_score;
    const auto top = std::max_element(reading.survivors.begin(), reading.survivors.end(),
                                      [](const Survivor& a, const Survivor& b) { return a.score < b.score; });
    if (!best || *best < top->score) {
        report(view, where,
               "a resume would load checkpoint-" + std::to_string(source) + " with best " +
                   (best ? json(*best).dump() : std::string("null")) + " below surviving checkpoint-" +
                   std::to_string(top->step) + "'s recorded score " + json(top->score).dump());
    }
}

void RetainedBestChecker::report(FsView view, std::string_view where, const std::string& what) {
    if (reported_) {
        return;  // one state of the disk stays wrong for many crash points: once per incarnation
    }
    reported_ = true;
    context_.violate(Property::P1, std::string("in the ") + view_name(view) + " view at " +
                                       std::string(where) + ": " + what);
}

}  // namespace ckpt::sim
