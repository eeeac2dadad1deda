// The trigger factory of one incarnation with an external callback: one process per rank,
// started when that rank builds its callback, serving every callback the trainer builds or
// rebuilds on that rank. Destroying the factory kills whatever is still running, so a crash, a
// rank death or a watchdog leaves no process behind and runs no Python `finally`.
#pragma once

#include <map>
#include <memory>

#include "sim/events/virtual_clock.hpp"
#include "sim/external/external_trigger.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

class ExternalTriggerFactory final : public TriggerFactory {
  public:
    // `incarnation` is 0 for the job's first run (the process is told 1).
    ExternalTriggerFactory(const CallbackSpec& spec, const Scenario& scenario, SimFileSystem& fs,
                           const VirtualClock& clock, int incarnation);

    std::unique_ptr<TriggerPort> build(const TriggerCallbackConfig& config,
                                       SimCollective& collective) override;
    std::unique_ptr<TriggerPort> rebuild(const nlohmann::json& saved, SimCollective& collective) override;

    // The first process's ready line without its framing fields, or null before any started.
    nlohmann::json identity() const;

  private:
    CallbackSession& session_of(SimCollective& collective);

    const CallbackSpec& spec_;
    SimFileSystem& fs_;
    const VirtualClock& clock_;
    std::uint64_t seed_;
    int incarnation_;
    ExternalTrainerFacts facts_;
    std::map<int, std::unique_ptr<CallbackSession>> sessions_;
};

}  // namespace ckpt::sim
