// The one writer of the ledger: it records, from the events, what the simulator observed (the
// scores it fed, the checkpoints and sidecars as the disk holds them, the injected damage, the
// published link) and decides each evaluation itself through reference_policy, from its own
// prior state. It never reads a state the policy reports. It runs before the checkers, which
// only read the ledger.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

class LedgerWriter {
  public:
    LedgerWriter(const PolicySettings& settings, const SimFileSystem& fs, Ledger& ledger)
        : settings_(settings), fs_(fs), ledger_(ledger) {}
    // Knowing the run's callbacks, a deadline's sidecar that is exactly the layout of the
    // ledger's state is recognised without being scanned (read_sidecar_at_deadline).
    LedgerWriter(const CallbackOptions& callbacks, const SimFileSystem& fs, Ledger& ledger)
        : settings_(callbacks.policy), callbacks_(&callbacks), fs_(fs), ledger_(ledger) {}

    void on(const IncarnationBegan& e);
    void on(const BaselineEstablished& e);
    void on(const EvaluationScored& e);
    void on(const EvaluationReturned& e);
    void on(const SaveCallbackReturned& e);
    void on(const RecoveryFinished& e);
    void on(const TrainerStateWritten& e);
    void on(const LinkPublished& e);
    void on(const OperatorRemedied& e);
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
    void read_sidecar_at_deadline();
    // Takes the bytes when it recognises them.
    bool read_sidecar_as_laid_out(std::optional<std::string>& bytes);

    const PolicySettings& settings_;
    const CallbackOptions* callbacks_ = nullptr;  // null: every deadline's sidecar is scanned
    const SimFileSystem& fs_;
    Ledger& ledger_;
    int incarnation_ = 0;
    // The disk's removal count at the last full scan for records to retire, and the records whose
    // directory the visible view lacked then (the only ones that can be retired until the next).
    std::uint64_t removals_seen_ = 0;
    std::vector<std::int64_t> retire_candidates_;
};

}  // namespace ckpt::sim
