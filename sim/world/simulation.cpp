// The simulation: runs the scenario's incarnations (one incarnation: scenario_incarnation.cpp) and
// is the single EventSink, whose fan-out order (world, ledger, checkers, faults, clock, stats,
// trace) is fixed, so traces replay.
#include "sim/world/simulation.hpp"

#include "sim/base/assert.hpp"
#include "sim/world/event_names.hpp"
#include "sim/world/operator_relaunch.hpp"
#include "sim/world/scenario_line.hpp"
#include "sim/world/scenario_simulation.hpp"

namespace ckpt::sim {

namespace {

// Under a stock Trainer's stateful-callback machinery (--callback-restore transformers), what the
// scenario drew as the port's choices is Transformers' own for the trainer and the checkers
// alike: the refresh appends, restored callbacks go to the end, and no callback has a state_key.
Scenario under_callback_machinery(const Scenario& scenario, const CallbackSpec* callback) {
    Scenario out = scenario;
    if (callback != nullptr && callback->transformers_restore) {
        out.trainer.stateful_callbacks_refresh = StatefulCallbacksRefresh::append;
        out.trainer.restored_callbacks_position = RestoredCallbacksPosition::end;
        out.callbacks.early_stopping_state_keys = false;
        out.callbacks.early_stopping_mixed_keys = false;
    }
    return out;
}

}  // namespace

ScenarioSimulation::ScenarioSimulation(const Scenario& scenario, const RunOptions& options)
    : original_(scenario),
      effective_(under_callback_machinery(scenario, options.external_callback)),
      external_callback_(options.external_callback),
      world_(effective_, options) {
    world_.fs.set_observer([this](const FsOperation& operation) { observe_disk(operation); });
    world_.fs.set_fault_injector([this](const FsOperation& operation) { return inject_io_fault(operation); });
    // Violations found while an incarnation runs are part of its story.
    world_.oracles.violations().set_listener([this](const Violation& violation) {
        if (scheduler_ != nullptr) {
            pending_violations_.push_back(violation);
        }
    });
}

// Every event goes, in this order, to: the world's own state (the incarnation's ranks, the
// save window), the ledger writer, the checkers, the fault plan, the clock, the stats and
// the trace. Ledger first, so checkers read what was observed; the clock before the trace,
// so a line carries the time after the work it reports. A fault the plan made due is then
// executed, so every sink saw the event before a crash unwinds the ranks.
void ScenarioSimulation::emit(const Event& event) {
    std::visit(
        [this, &event](const auto& e) {
            on_phase(e);
            world_.save_window.on(e);
            world_.ledger_writer.on(e);
            world_.oracles.on(e);
            world_.faults.on(e);
            world_.clock.on(e);
            world_.stats_sink.on(e);
            const auto first_line = world_.trace.events();
            world_.trace_sink.on(e);
            if (!pending_violations_.empty()) {  // the common case costs one test, not a call
                trace_pending_violations(event, first_line);
            }
        },
        event);
    if (!world_.faults.has_due()) {
        return;
    }
    const auto due = world_.faults.take_due();
    CKPT_ASSERT(scheduler_ != nullptr);
    world_.faults.execute(*due, {world_.fs, world_.ledger, *scheduler_, *this});
}

ScenarioResult ScenarioSimulation::run() {
    world_.trace.record(0, 0, -1, "scenario", scenario_fields(world_.scenario));
    const int limit = static_cast<int>(world_.scenario.faults.size()) + 3 + kMaxRefusalFixes + kMaxRelaunches;
    bool ended = false;
    for (int incarnation = 0; incarnation < limit && !ended; ++incarnation) {
        ended = run_incarnation(incarnation);
    }
    if (!ended) {
        end(Outcome::violated, "the job did not finish within " + std::to_string(limit) + " incarnations");
        emit(IncarnationLimitReached{limit});
    }
    world_.trace_sink.record(
        -1, "end", TraceFields().string("detail", outcome_detail_).string("outcome", to_string(outcome_)));
    ScenarioResult result;
    result.scenario = original_;  // the fixes a refusal named are applied again on replay
    result.outcome = outcome_;
    result.outcome_detail = outcome_detail_;
    result.violations = world_.oracles.violations().all();
    result.trace_hash = world_.trace.hash_hex();
    result.trace_hash_value = world_.trace.hash();
    result.trace = world_.trace.lines();
    result.stats = world_.stats;
    result.stats.virtual_ms = world_.clock.now_ms();
    result.stats.save_window_dangling = world_.oracles.link().save_window_dangling();
    result.callback_identity = std::move(callback_identity_);
    return result;
}

// A violation's line follows the line of the event it judges (`first_line`, the trace's
// line count before that event wrote), and says which event that was: "judges" is the
// judged line's number (0-based, the scenario line being 0) or null when the event wrote none.
void ScenarioSimulation::trace_pending_violations(const Event& event, std::uint64_t first_line) {
    const bool wrote = world_.trace.events() > first_line;
    for (const auto& violation : pending_violations_) {
        world_.trace_sink.record(
            -1, "violation",
            TraceFields()
                .string("event", event_name(event))
                .integer_or_null(
                    "judges",
                    wrote ? std::optional<std::int64_t>(static_cast<std::int64_t>(first_line)) : std::nullopt)
                .string("message", violation.message)
                .string("property", id_of(violation.property)));
    }
    pending_violations_.clear();
}

// The disk's hooks: only rank 0's operations inside an incarnation are the callback's.
void ScenarioSimulation::observe_disk(const FsOperation& operation) {
    if (rank_zero_is_running()) {
        world_.callback_points.observe(operation, world_.fs, *this);
    }
}
Fault ScenarioSimulation::inject_io_fault(const FsOperation& operation) {
    if (!world_.faults.has_io_faults() || !rank_zero_is_running()) {
        return {};
    }
    const auto fired = world_.faults.io_fault(operation);
    if (!fired) {
        return {};
    }
    emit(IoErrorInjected{fired->target, operation.path});
    return fired->fault;
}

void ScenarioSimulation::end(Outcome outcome, std::string detail) {
    outcome_ = outcome;
    outcome_detail_ = std::move(detail);
}

// A failure an operator would remedy (operator_relaunch.hpp): true when the scenario ends on
// it, false when the remedy was applied and the job is launched again.
bool ScenarioSimulation::end_unless_remedied(Outcome outcome, std::string detail, Remedy remedy,
                                             const std::string& path) {
    // Every rank of the failed (or hung) job is gone before the operator touches anything.
    if (relaunches_ < kMaxRelaunches) {
        world_.fs.process_kill();
    }
    if (relaunches_ >= kMaxRelaunches || !apply_remedy(remedy, path, detail, world_.fs, effective_)) {
        end(outcome, std::move(detail));
        return true;
    }
    ++relaunches_;
    world_.stats.relaunches[std::string(kRemedyNames.name(remedy))] += 1;
    world_.trace_sink.record(-1, "relaunch",
                             TraceFields()
                                 .string("failure", detail)
                                 .string("path", path)
                                 .string("remedy", kRemedyNames.name(remedy)));
    emit(OperatorRemedied{kRemedyNames.name(remedy), path});
    return false;
}

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
    scenario.validate();
    return ScenarioSimulation(scenario, options).run();
}

}  // namespace ckpt::sim
