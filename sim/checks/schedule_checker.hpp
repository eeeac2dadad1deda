// P13: every save event of the trainer becomes exactly one evaluation, none happens outside a
// save event, and one is dropped only for a step the restored history counted or while a stop
// is in force. The save events are derived here from the scenario (DefaultFlowCallback's
// save_steps and max_steps rule, the epoch end, the seed's gate and regular steps), never from
// the callback; the windows are rank 0's step and epoch-end events.
#pragma once

#include <cstdint>

#include "sim/checks/checker_context.hpp"
#include "sim/events/event.hpp"

namespace ckpt::sim {

class ScheduleChecker {
  public:
    explicit ScheduleChecker(const CheckerContext& context) : context_(context) {}

    void on(const IncarnationBegan& e);
    // The stop the ledger says the resume restored binds the incarnation from its start.
    void on(const TrainBegan&) noexcept { stop_in_force_ = context_.ledger.expected_state.stop_requested; }
    // Rank 0's windows only; the other ranks' steps (most events of a run) cost no call.
    void on(const StepStarted& e) {
        if (e.rank == 0) {
            rank_zero_step_started();
        }
    }
    void on(const EvaluationStarted& e);
    // The ledger writer decided this evaluation before the checkers see it.
    void on(const EvaluationScored&) noexcept {
        const auto& decision = context_.ledger.last_decision;
        stop_in_force_ = stop_in_force_ || (decision && decision->should_stop);
    }
    void on(const StepFinished& e) {
        if (e.rank == 0) {
            rank_zero_step_finished(e.global_step);
        }
    }
    void on(const EpochEnded& e);
    void on(const auto&) noexcept {}

  private:
    enum class Window : std::uint8_t { none, step_end, epoch_end };

    void rank_zero_step_started();
    void rank_zero_step_finished(std::int64_t global_step);
    bool step_end_saves(std::int64_t step) const noexcept;
    void open(Window window, bool save_event);
    void report(const char* what) const;

    const CheckerContext& context_;
    Window window_ = Window::none;
    std::int64_t step_ = 0;  // the trainer's global step as rank 0 last reported it
    int evaluations_ = 0;    // in the open window
    bool stop_in_force_ = false;
    // The open window's save event and why it may be dropped; expected_ is 1 or 0.
    bool save_event_ = false;
    bool replayed_ = false;
    bool stop_at_open_ = false;
    int expected_ = 0;
};

}  // namespace ckpt::sim
