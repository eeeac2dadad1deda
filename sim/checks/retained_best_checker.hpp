// P1 as a disk invariant: at every crash point outside the save window, and right after every
// crash (the disk a power loss or kill left, before recovery runs), the visible and the durable
// view each keep final_checkpoint on the best surviving recorded checkpoint, at most
// save_total_limit checkpoints up to it, and a resume source whose recorded best is the retained
// best. Ground truth: the ledger's checkpoint records and this checker's own listing of the view.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class RetainedBestChecker {
  public:
    explicit RetainedBestChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const CheckpointStarted& e);
    void on(const TrainerStateWritten& e);
    // The job fails on it, possibly with a publication cut short: the next recovery repairs it.
    void on(const IoErrorInjected&) noexcept { repair_pending_ = true; }
    void on(const Committed& e) noexcept;
    void on(const TrainBegan&) noexcept;
    // Rank 0's crash points only; the other ranks' (one per step each) cost no call.
    void on(const CrashPointPassed& e) {
        if (e.rank == 0) {
            rank_zero_crash_point(e.point);
        }
    }
    void on(const auto&) noexcept {}

  private:
    void rank_zero_crash_point(CrashPoint point);
    void know(std::int64_t step);  // a checkpoint directory that may now exist
    // One view's checkpoint directories, as this checker lists and reads them.
    struct Survivor {
        std::int64_t step = 0;
        double score = 0.0;
    };
    struct ViewReading {
        std::vector<std::int64_t> directories;  // every checkpoint-N directory, ascending
        std::vector<std::int64_t> complete;     // trainer_state.json names global_step N
        std::vector<Survivor> survivors;        // complete with the bytes the ledger recorded
        std::optional<std::string> link_target;
    };
    // A checkpoint directory the trainer began (only the trainer creates them), probed by name.
    struct KnownCheckpoint {
        std::int64_t step = 0;
        std::string directory;
        std::string trainer_state;
    };
    const std::vector<const KnownCheckpoint*>& candidates_in(FsView view);
    void read_view(FsView view);
    void check_view(FsView view, bool recovery_ran, std::string_view where);
    void check_link(const ViewReading& reading, FsView view, bool recovery_ran, std::string_view where);
    void check_kept(const ViewReading& reading, FsView view, std::string_view where);
    void check_resume_source(const ViewReading& reading, FsView view, std::string_view where);
    void report(FsView view, std::string_view where, const std::string& what);

    const CheckerContext& context_;
    std::vector<KnownCheckpoint> known_;              // ascending by step
    std::vector<const KnownCheckpoint*> candidates_;  // reused by candidates_in
    ViewReading reading_;  // reused, so a check allocates nothing in the steady state
    std::array<std::uint64_t, 2> checked_at_{UINT64_MAX, UINT64_MAX};  // FsStats::changes_to by view
    // The checkpoint written but not yet committed (its on_save, or the recovery of the next
    // on_train_begin, publishes it): the link may still name the previous best.
    std::optional<std::int64_t> unpublished_;
    bool recovery_ran_ = false;    // this incarnation's on_train_begin returned
    bool repair_pending_ = false;  // an injected I/O error failed the job; recovery has not rerun
    bool reported_ = false;        // a violation was reported in this incarnation
};

}  // namespace ckpt::sim
