// The one writer of the ledger: it records, from the events, what the simulator observed (the
// decisions, the checkpoints and sidecars as the disk holds them, the injected damage, the
// published link). It runs before the checkers, which only read the ledger.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/checks/ledger.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class LedgerWriter {
  public:
    LedgerWriter(const SimFileSystem& fs, Ledger& ledger) : fs_(fs), ledger_(ledger) {}

    void on(const IncarnationBegan& e);
    void on(const TrainBegan& e);
    void on(const DecisionMade& e);
    void on(const SidecarPersisted& e);
    void on(const RecoveryFinished& e);
    void on(const TrainerStateWritten& e);
    void on(const LinkPublished& e);
    void on(const SidecarCorrupted& e);
    void on(const CheckpointCorrupted& e);
    // A link rename seen starting counts once the disk shows it happened.
    void on(const CrashPointPassed& e) {
        if (e.rank == 0) {
            settle_link();
        }
    }
    void on(const JobFinished&) { settle_link(); }
    void on(const auto&) noexcept {}

  private:
    void settle_link();
    void retire_unreachable_checkpoints(std::int64_t written_step);
    bool retire_if_unreachable(std::int64_t step, std::int64_t written_step);
    void forget_retired(std::int64_t step);
    int restored_node(const CheckpointEvaluationState& restored) const;

    const SimFileSystem& fs_;
    Ledger& ledger_;
    int incarnation_ = 0;
    // The disk's removal count at the last full scan for records to retire, and the records whose
    // directory the visible view lacked then (the only ones that can be retired until the next).
    std::uint64_t removals_seen_ = 0;
    std::vector<std::int64_t> retire_candidates_;
};

}  // namespace ckpt::sim
