// The first report of each evaluation. Every rank reports every evaluation of an incarnation, in
// the same order (the schedule and the callbacks' decisions agree across ranks: P7), so the n-th
// report of any rank is the n-th evaluation. A checker's model moves on the first report of each,
// whichever rank makes it: under save_on_each_node another node's local rank 0 may evaluate and
// write a checkpoint before rank 0's callbacks have run, and its write must meet a model that
// holds its evaluation.
#pragma once

#include <array>
#include <cstdint>

namespace ckpt::sim {

class FirstReports {
  public:
    // Whether this report of `rank`'s is the first of its evaluation.
    bool first(int rank) noexcept {
        auto& reported = reported_[static_cast<std::size_t>(rank) % reported_.size()];
        return ++reported > counted_ ? (++counted_, true) : false;
    }
    // A new incarnation counts its evaluations afresh.
    void reset() noexcept {
        reported_.fill(0);
        counted_ = 0;
    }

  private:
    std::array<std::uint64_t, 8> reported_{};  // by rank (ranks are at most 8)
    std::uint64_t counted_ = 0;                // evaluations the model holds
};

}  // namespace ckpt::sim
