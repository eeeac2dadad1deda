// P1 and P4: final_checkpoint only moves to a higher-scoring checkpoint and ends on the best
// one; it is absent or names a complete checkpoint, except inside the save window, where a
// dangling link is the seed's known exposure and is counted, not failed. A commit in on_save
// renames the link before it touches the sidecar (the seed's _commit_saved_checkpoint order).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class LinkChecker {
  public:
    explicit LinkChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan&);
    void on(const LinkPublished& e);
    // Rank 0's crash points only; the other ranks' (one per step each) cost no call.
    void on(const CrashPointPassed& e) {
        if (e.rank == 0) {
            rank_zero_crash_point(e.point);
        }
    }
    void on(const JobFinished&);
    void on(const SaveCallbackStarted& e) noexcept;
    void on(const Committed& e);
    void on(const auto&) noexcept {}

    // Crash points passed with a dangling link inside the save window.
    std::uint64_t save_window_dangling() const noexcept { return save_window_dangling_; }

  private:
    void rank_zero_crash_point(CrashPoint point);
    void check_retention_at_end(std::int64_t link);

    const CheckerContext& context_;
    std::uint64_t link_checked_at_ops_ = UINT64_MAX;  // FsStats::changes_to(visible) at the last check
    bool link_check_was_ok_ = true;
    std::optional<std::int64_t> link_checked_step_;
    std::uint64_t save_window_dangling_ = 0;
    // The write order of rank 0's commit in on_save: the link rename, then the sidecar.
    bool in_commit_ = false;
    bool commit_linked_ = false;
    bool commit_sidecar_before_link_ = false;
    // The linked checkpoint a crash inside the save window took with it (see on(IncarnationBegan)).
    std::optional<std::int64_t> lost_in_save_window_;
};

}  // namespace ckpt::sim
