// Internal to sim/world: the simulation of one scenario, which runs its incarnations and is their one
// EventSink. run_scenario (simulation.hpp) is its only user; simulation.cpp defines the scenario's
// loop and the fan-out, scenario_incarnation.cpp one incarnation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/checks/property.hpp"
#include "sim/disk/disk_faults.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event.hpp"
#include "sim/events/event_sink.hpp"
#include "sim/external/callback_spec.hpp"
#include "sim/faults/simulated_crash.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/world/operator_relaunch.hpp"
#include "sim/world/simulation.hpp"
#include "sim/world/world.hpp"

namespace ckpt::sim {

// Runs the incarnations and is the one EventSink: see `emit` for the order of the fan-out.
class ScenarioSimulation final : public EventSink {
  public:
    ScenarioSimulation(const Scenario& scenario, const RunOptions& options);
    ScenarioSimulation(const ScenarioSimulation&) = delete;
    ScenarioSimulation& operator=(const ScenarioSimulation&) = delete;

    void emit(const Event& event) override;
    ScenarioResult run();

  private:
    void on_phase(const IncarnationBegan&) noexcept { world_.callback_points.reset(); }
    void on_phase(const IncarnationEnded&) noexcept {
        world_.callback_points.reset();
        scheduler_ = nullptr;
    }
    void on_phase(const auto&) noexcept {}

    [[gnu::noinline]] void trace_pending_violations(const Event& event, std::uint64_t first_line);

    // The disk's hooks: only rank 0's operations inside an incarnation are the callback's.
    bool rank_zero_is_running() const { return scheduler_ != nullptr && scheduler_->current_rank() == 0; }
    void observe_disk(const FsOperation& operation);
    Fault inject_io_fault(const FsOperation& operation);

    void end(Outcome outcome, std::string detail);
    bool end_unless_remedied(Outcome outcome, std::string detail, Remedy remedy,
                             const std::string& path = {});

    // How an incarnation's start went: it began, or it failed and the scenario ended, or it failed
    // and an operator's remedy launches the job again.
    enum class Start : std::uint8_t { began, ended, relaunched };
    static Start failed_start(bool ended) { return ended ? Start::ended : Start::relaunched; }

    // One incarnation (scenario_incarnation.cpp).
    Start choose_resume_point(int incarnation, std::optional<std::int64_t>& resume_step);
    Start weights_load(std::int64_t step);
    // Ground truth for both: every weights file the trainer writes at `step` is whole on the
    // visible disk (a lost or torn shard fails Transformers' load).
    bool weights_whole(std::int64_t step) const;
    // Ground truth: checkpoint-`step`'s trainer_state.json on the visible disk is not exactly a
    // write the trainer made (a power loss tore or interleaved it, or a fault damaged it), so its
    // text may fail a restore that the written text would pass.
    bool trainer_state_damaged(std::int64_t step) const;
    // The newest checkpoint-N the simulator itself sees complete (trainer_state.json naming N)
    // with whole weights: what the fixed resume rule must pick.
    std::optional<std::int64_t> newest_loadable_checkpoint() const;
    void apply_crash(const SimulatedCrash& crash);
    bool run_incarnation(int incarnation);
    bool after_run(const RunResult& result);

    // The refusal rules' and Transformers' assertions' fixes; one can bring the next on (a limit of
    // 2 for 1, then evaluations turned on for Transformers' EarlyStoppingCallback refuse that limit).
    static constexpr int kMaxRefusalFixes = 6;

    const Scenario& original_;
    Scenario effective_;
    const CallbackSpec* external_callback_;  // null: the C++ port
    nlohmann::json callback_identity_;       // the original with the fixes refusals
                                             // named; what the world runs
    World world_;
    int refusal_fixes_ = 0;
    int relaunches_ = 0;                        // remedies applied (operator_relaunch.hpp)
    bool resumed_with_change_ = false;          // the running incarnation resumed under a resume change
    std::optional<std::int64_t> resumed_from_;  // the checkpoint the running incarnation resumed from
    Outcome outcome_ = Outcome::finished;
    std::string outcome_detail_;
    RankScheduler* scheduler_ = nullptr;         // the running incarnation's, or none
    std::vector<Violation> pending_violations_;  // found by the checkers, traced after the event
};

}  // namespace ckpt::sim
