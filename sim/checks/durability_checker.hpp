// P2 and P9 under the durability contract (docs/properties.md): when rank 0's on_evaluate returns
// for a decision that does not save, and when on_save returns for one that does, the durable
// sidecar holds the ledger's state after that decision (reference_policy's, from the ledger's own
// prior), laid out byte for byte as the seed writes it with the ledger's last evaluated step; a
// sidecar that on_train_begin's recovery rewrote holds the state the resume must restore, in the
// same layout; and no checkpoint evaluation is fed at a step the restored history counted.
// Judged at moments the trainer owns, from the disk as the ledger read it, whatever the code
// wrote or reported (a decision whose write was skipped is judged like one whose write failed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class DurabilityChecker {
  public:
    explicit DurabilityChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const EvaluationScored& e);
    void on(const EvaluationReturned& e) {
        if (e.rank == 0) {
            judge_deadline("rank 0's on_evaluate returned");
        }
    }
    void on(const SaveCallbackReturned&) { judge_deadline("on_save returned"); }
    void on(const RecoveryFinished&);
    void on(const auto&) noexcept {}

  private:
    void judge_deadline(const char* when);
    bool restored_from_a_stepped_sidecar(int node) const;
    void judge_layout(const std::string& bytes, const CheckpointEvaluationState& state,
                      std::optional<std::int64_t> last_evaluated_step, const char* what);

    const CheckerContext& context_;
    std::uint64_t deadlines_judged_ = 0;
    bool counted_twice_reported_ = false;
    bool lapse_reported_ = false;                  // a deadline found the sidecar behind the ledger
    std::optional<std::string> sidecar_at_start_;  // the durable bytes before on_train_begin
    std::optional<std::int64_t> resume_step_;      // the running incarnation's checkpoint
    int sidecar_version_ = 2;                      // what the running incarnation's release writes
};

}  // namespace ckpt::sim
