// P13 over rank 0's windows: a step window runs from StepStarted to StepFinished, the epoch
// end's from StepFinished to EpochEnded. An evaluation too many is reported when it happens;
// one too few only when the window closes, so a crash that cut a window short excuses it.
#include "sim/checks/schedule_checker.hpp"

#include <algorithm>
#include <string>

namespace ckpt::sim {

void ScheduleChecker::on(const IncarnationBegan& e) {
    window_ = Window::none;
    evaluations_ = 0;
    step_ = e.resume_step.value_or(0);
    stop_in_force_ = false;
}

// DefaultFlowCallback.on_step_end (save_steps grid, and max_steps under "steps") and the
// seed's gate and regular steps, which all raise the one should_save flag of the step.
bool ScheduleChecker::step_end_saves(std::int64_t step) const noexcept {
    const auto& s = context_.scenario;
    if (s.trainer.save_strategy == SaveStrategy::steps &&
        ((s.trainer.save_steps > 0 && step % s.trainer.save_steps == 0) || step >= s.trainer.max_steps)) {
        return true;
    }
    if (std::find(s.callbacks.gate_steps.begin(), s.callbacks.gate_steps.end(), step) !=
        s.callbacks.gate_steps.end()) {
        return true;
    }
    return s.callbacks.regular_steps && *s.callbacks.regular_steps > 0 &&
           step % *s.callbacks.regular_steps == 0;
}

// The window's expectation is known when it opens: a crash inside it may cut it short, so an
// evaluation too many is reported at once and one too few when the window closes.
void ScheduleChecker::open(Window window, bool save_event) {
    window_ = window;
    evaluations_ = 0;
    const auto& counted = context_.ledger.restored_counted_steps;
    replayed_ = save_event && std::binary_search(counted.begin(), counted.end(), step_);  // read only then
    stop_at_open_ = stop_in_force_;
    save_event_ = save_event;
    expected_ = save_event && !replayed_ && !stop_at_open_ ? 1 : 0;
}

void ScheduleChecker::rank_zero_step_started() {
    // Evaluations after a step end that no epoch end followed (too many were reported already).
    if (window_ == Window::epoch_end && evaluations_ > 0 && evaluations_ <= expected_) {
        context_.violate(Property::P13, "an evaluation at step " + std::to_string(step_) +
                                            " happened outside any save event");
    }
    ++step_;
    open(Window::step_end, step_end_saves(step_));
}

// Counted when it starts (the policy may raise before deciding), rank 0's only.
void ScheduleChecker::on(const EvaluationStarted& e) {
    if (e.rank != 0) {
        return;
    }
    if (window_ == Window::none) {
        context_.violate(Property::P13, "an evaluation after step " + std::to_string(step_) +
                                            " happened outside the training loop's save events");
        return;
    }
    ++evaluations_;
    if (evaluations_ == expected_ + 1) {
        report(window_ == Window::step_end ? "the step end" : "the epoch end");
    }
}

void ScheduleChecker::report(const char* what) const {
    const std::string why = !save_event_    ? "no save event"
                            : replayed_     ? "a save event at a step the restored history counted"
                            : stop_at_open_ ? "a save event under a stop"
                                            : "a save event";
    context_.violate(Property::P13, std::string(what) + " of step " + std::to_string(step_) + " had " + why +
                                        " but " + std::to_string(evaluations_) + " evaluations");
}

void ScheduleChecker::rank_zero_step_finished(std::int64_t global_step) {
    step_ = global_step;
    if (window_ == Window::step_end && evaluations_ < expected_) {
        report("the step end");
    }
    open(Window::epoch_end, context_.scenario.trainer.save_strategy == SaveStrategy::epoch);
}

void ScheduleChecker::on(const EpochEnded& e) {
    if (e.rank != 0) {
        return;
    }
    step_ = e.global_step;
    if (window_ == Window::epoch_end && evaluations_ < expected_) {
        report("the epoch end");
    }
    window_ = Window::none;
}

}  // namespace ckpt::sim
