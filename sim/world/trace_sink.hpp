// Writes the trace lines the events stand for, stamped with the clock's time and the running
// incarnation; events that are not part of the run's story write nothing.
#pragma once

#include <optional>

#include "sim/events/event.hpp"
#include "sim/events/virtual_clock.hpp"
#include "sim/world/trace.hpp"

namespace ckpt::sim {

class TraceSink {
  public:
    TraceSink(Trace& trace, const VirtualClock& clock, const int& incarnation)
        : trace_(trace), clock_(clock), incarnation_(incarnation) {}

    // A line of the running incarnation; `rank` is -1 for job-level lines.
    void record(int rank, std::string_view kind, const nlohmann::json& details = nlohmann::json::object()) {
        trace_.record(clock_.now_ms(), incarnation_, rank, kind, details);
    }
    void record(int rank, std::string_view kind, const TraceFields& details) {
        trace_.record(clock_.now_ms(), incarnation_, rank, kind, details);
    }

    void on(const IncarnationBegan& e);
    void on(const ResumeSourceChosen& e);
    void on(const CallbacksRestored& e);
    void on(const TrainBegan& e);
    void on(const SidecarPersisted& e);
    void on(const DecisionMade& e);
    void on(const CheckpointStarted& e);
    void on(const Committed& e);
    void on(const LinkPublished& e);
    void on(const CrashInjected& e);
    void on(const RankDeathInjected& e);
    void on(const SidecarCorrupted& e);
    void on(const CheckpointCorrupted& e);
    void on(const Preempted& e);
    void on(const IoErrorInjected& e);
    void on(const BestModelLoading& e);
    void on(const auto&) noexcept {}

  private:
    Trace& trace_;
    const VirtualClock& clock_;
    const int& incarnation_;
    // The evaluations the resume checkpoint's trainer_state.json carried for the policy, to
    // tell a state restored from the checkpoint from one adopted from the sidecar.
    std::optional<std::int64_t> checkpoint_evaluations_;
};

}  // namespace ckpt::sim
