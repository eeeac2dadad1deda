// P1 and P4: final_checkpoint only moves to a higher-scoring checkpoint and ends on the best
// one; it is absent or names a complete checkpoint, except inside the save window, where a
// dangling link is the seed's known exposure and is counted, not failed.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class LinkChecker {
  public:
    explicit LinkChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan&) noexcept { link_checked_at_ops_ = UINT64_MAX; }
    void on(const LinkPublished& e);
    void on(const CrashPointPassed& e);
    void on(const JobFinished& e);
    void on(const auto&) noexcept {}

    // Crash points passed with a dangling link inside the save window.
    std::uint64_t save_window_dangling() const noexcept { return save_window_dangling_; }

  private:
    void check_retention_at_end(std::int64_t link);

    const CheckerContext& context_;
    std::uint64_t link_checked_at_ops_ = UINT64_MAX;  // file-system operation count of the last check
    bool link_check_was_ok_ = true;
    std::optional<std::int64_t> link_checked_step_;
    std::uint64_t save_window_dangling_ = 0;
};

}  // namespace ckpt::sim
