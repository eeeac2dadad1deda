// P13 over rank 0's windows: a step window runs from StepStarted to StepFinished, the epoch
// end's from StepFinished to EpochEnded. A window a crash cut short is never judged.
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
    if (s.save_strategy == SaveStrategy::steps &&
        ((s.save_steps > 0 && step % s.save_steps == 0) || step >= s.max_steps)) {
        return true;
    }
    if (std::find(s.gate_steps.begin(), s.gate_steps.end(), step) != s.gate_steps.end()) {
        return true;
    }
    return s.regular_steps && *s.regular_steps > 0 && step % *s.regular_steps == 0;
}

void ScheduleChecker::open(Window window) {
    window_ = window;
    evaluations_ = 0;
    stop_at_open_ = stop_in_force_;
}

void ScheduleChecker::on(const StepStarted& e) {
    if (e.rank != 0) {
        return;
    }
    if (window_ == Window::epoch_end && evaluations_ > 0) {
        context_.violate(Property::P13, "an evaluation at step " + std::to_string(step_) +
                                            " happened outside any save event");
    }
    open(Window::step_end);
}

void ScheduleChecker::on(const DecisionMade& e) {
    if (window_ == Window::none) {
        context_.violate(Property::P13, "an evaluation at step " + std::to_string(e.step) +
                                            " happened outside the training loop's save events");
    }
    ++evaluations_;
    stop_in_force_ = stop_in_force_ || e.decision.should_stop;
}

void ScheduleChecker::close(bool save_event, const char* what) {
    const auto& counted = context_.ledger.restored_counted_steps;
    const bool replayed = std::binary_search(counted.begin(), counted.end(), step_);
    const int expected = save_event && !replayed && !stop_at_open_ ? 1 : 0;
    if (evaluations_ != expected) {
        const std::string why = !save_event     ? "no save event"
                                : replayed      ? "a save event at a step the restored history counted"
                                : stop_at_open_ ? "a save event under a stop"
                                                : "a save event";
        context_.violate(Property::P13, std::string(what) + " of step " + std::to_string(step_) + " had " +
                                            why + " but " + std::to_string(evaluations_) + " evaluations");
    }
}

void ScheduleChecker::on(const StepFinished& e) {
    if (e.rank != 0) {
        return;
    }
    step_ = e.global_step;
    if (window_ == Window::step_end) {
        close(step_end_saves(step_), "the step end");
    }
    open(Window::epoch_end);
}

void ScheduleChecker::on(const EpochEnded& e) {
    if (e.rank != 0) {
        return;
    }
    step_ = e.global_step;
    if (window_ == Window::epoch_end) {
        close(context_.scenario.save_strategy == SaveStrategy::epoch, "the epoch end");
    }
    window_ = Window::none;
}

}  // namespace ckpt::sim
