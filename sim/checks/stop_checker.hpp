// P3: after a stop (durable or decided) no rank takes another optimizer step or starts another
// evaluation. Tracks, per rank of the running incarnation, whether a stop is in force.
#pragma once

#include <vector>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class StopChecker {
  public:
    explicit StopChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    void on(const StepStarted& e) {
        if (take_first_step_grace(e.rank)) {
            return;
        }
        report_once(e.rank, " took an optimizer step after a stop");
    }
    void on(const StepFinished& e) noexcept { last_step_[static_cast<std::size_t>(e.rank)] = e.global_step; }
    void on(const EvaluationStarted& e) { report_once(e.rank, " started an evaluation after a stop"); }
    // A stop is in force on a rank once its on_evaluate returned for a decision the ledger says
    // stops, whatever the rank's callback did with it.
    void on(const EvaluationReturned& e) noexcept {
        const auto* decision = decision_of_round(context_.ledger, e.round);
        if (decision != nullptr && decision->should_stop) {
            stop_in_force_[static_cast<std::size_t>(e.rank)] = 1;
        }
    }
    void on(const auto&) noexcept {}

  private:
    // Transformers' loop (stop_test after_step) tests the stop only after a step: a stop in
    // force when training begins still trains exactly one step per rank, with no evaluation.
    bool take_first_step_grace(int rank) {
        stepped_[static_cast<std::size_t>(rank)] = 1;
        const auto index = static_cast<std::size_t>(rank);
        const bool forgiven = first_step_grace_[index] != 0 && stop_in_force_[index] != 0;
        first_step_grace_[index] = 0;
        return forgiven;
    }
    void grant_first_step_grace();

    // Inline: every step and evaluation of every rank passes here, and a stop is rare.
    void report_once(int rank, const char* what) {
        if (stop_in_force_[static_cast<std::size_t>(rank)] != 0) {
            report(rank, what);
        }
    }
    void report(int rank, const char* what);

    const CheckerContext& context_;
    // Bytes, not std::vector<bool>'s bits: every step of every rank reads and writes them.
    std::vector<char> stop_in_force_;
    std::vector<char> first_step_grace_;  // only a rank's first step of an incarnation
    std::vector<char> stepped_;
    std::vector<std::int64_t> last_step_;  // each rank's last finished global step, for the message
};

}  // namespace ckpt::sim
