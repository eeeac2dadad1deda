#include "sim/world/simulation.hpp"

#include <algorithm>

#include "policy/formats/document_migrations.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "sim/checks/oracles.hpp"
#include "sim/faults/fault_injector.hpp"
#include "sim/trainer/job_context.hpp"
#include "sim/trainer/rank_trainer.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// One scenario's world: what outlives each incarnation of the job.
struct World {
    explicit World(const Scenario& s, const RunOptions& options)
        : scenario(s),
          scores(s),
          trace(options.keep_trace),
          oracles(scenario, fs, ledger),
          faults(scenario, Rng(s.seed).derive("faults")),
          power(Rng(s.seed).derive("power")) {
        fs.mkdir("/run");
        fs.mkdir(kOutputDir);
        fs.sync_all();
        fs.set_observer([this](const FsOperation& operation) { faults.observe(operation); });
        fs.set_fault_injector([this](const FsOperation& operation) { return faults.io_fault(operation); });
    }

    const Scenario& scenario;
    SimFileSystem fs;
    ScoreModel scores;
    Ledger ledger;
    Trace trace;
    RunStats stats;
    Oracles oracles;
    FaultInjector faults;
    Rng power;
    bool in_save_window = false;
};

int count_dead(const RunResult& result) {
    return static_cast<int>(std::count_if(result.ranks.begin(), result.ranks.end(), [](const RankOutcome& r) {
        return r.kind == RankOutcome::Kind::dead;
    }));
}

std::string first_failure(const RunResult& result) {
    for (const auto& rank : result.ranks) {
        if (rank.kind == RankOutcome::Kind::failed) {
            return rank.message;
        }
    }
    return result.hang;
}

class Simulation {
  public:
    Simulation(const Scenario& scenario, const RunOptions& options) : world_(scenario, options) {}

    ScenarioResult run() {
        world_.trace.record(0, 0, -1, "scenario", world_.scenario.to_json());
        const int limit = static_cast<int>(world_.scenario.faults.size()) + 3;
        bool ended = false;
        for (int incarnation = 0; incarnation < limit && !ended; ++incarnation) {
            ended = run_incarnation(incarnation);
        }
        if (!ended) {
            end(Outcome::violated,
                "the job did not finish within " + std::to_string(limit) + " incarnations");
            world_.oracles.violate(Property::P12, outcome_detail_);
        }
        world_.trace.record(world_.stats.virtual_ms, last_incarnation_, -1, "end",
                            {{"outcome", to_string(outcome_)}, {"detail", outcome_detail_}});
        ScenarioResult result;
        result.scenario = world_.scenario;
        result.outcome = outcome_;
        result.outcome_detail = outcome_detail_;
        result.violations = world_.oracles.violations();
        result.trace_hash = world_.trace.hash_hex();
        result.trace_hash_value = world_.trace.hash();
        result.trace = world_.trace.lines();
        result.stats = world_.stats;
        return result;
    }

  private:
    void end(Outcome outcome, std::string detail) {
        outcome_ = outcome;
        outcome_detail_ = std::move(detail);
    }

    // Which checkpoint a new incarnation starts from; false when the start itself fails.
    bool choose_resume_point(int incarnation, std::optional<std::int64_t>& resume_step) {
        if (incarnation == 0) {
            return true;
        }
        // Traces and checks each step of the policy's resume rule at the moment it happens.
        class TracedResume final : public ResumeObserver {
          public:
            TracedResume(Simulation& simulation, int incarnation)
                : sim_(simulation), incarnation_(incarnation) {}
            bool abandoned = false;

            bool on_chosen(const CheckpointEntry& source) override {
                auto& world = sim_.world_;
                const bool complete = world.oracles.checkpoint_is_complete(source.step);
                world.trace.record(world.stats.virtual_ms, incarnation_, -1, "resume",
                                   {{"checkpoint", source.name}, {"complete", complete}});
                world.oracles.on_resume_source(source.step, complete);
                if (complete) {
                    return true;
                }
                if (world.scenario.resume_rule == ResumeRule::transformers) {
                    sim_.end(Outcome::resume_failed,
                             "get_last_checkpoint picked incomplete " + source.name +
                                 ": trainer_state.json is missing or torn (Transformers #35782)");
                } else {
                    sim_.end(Outcome::violated, "resumed from incomplete " + source.name);
                }
                abandoned = true;
                return false;
            }
            void on_removed(const CheckpointEntry& removed) override {
                auto& world = sim_.world_;
                world.trace.record(world.stats.virtual_ms, incarnation_, -1, "remove_incomplete",
                                   {{"checkpoint", removed.name}});
            }

          private:
            Simulation& sim_;
            int incarnation_;
        };
        TracedResume observer(*this, incarnation);
        const auto rule = world_.scenario.resume_rule == ResumeRule::transformers
                              ? ResumeSourceRule::newest_directory
                              : ResumeSourceRule::newest_complete;
        const auto source = resume_from_checkpoint(world_.fs, kOutputDir, rule, observer);
        if (observer.abandoned) {
            return false;
        }
        if (source) {
            resume_step = source->step;
            world_.stats.resumes += 1;
        }
        return true;  // without a source: nothing to resume from, train from scratch
    }

    void apply_crash(const SimulatedCrash& crash, int incarnation) {
        if (crash.kind() == CrashKind::process_kill) {
            world_.fs.process_kill();
            return;
        }
        const auto report = world_.fs.power_loss(crash.power_loss(), world_.power);
        world_.trace.record(world_.stats.virtual_ms, incarnation, -1, "power_loss",
                            {{"mode", to_string(crash.power_loss())},
                             {"pending", report.pending},
                             {"kept", report.kept},
                             {"torn", report.torn}});
    }

    // Runs one incarnation; true when the scenario ended.
    bool run_incarnation(int incarnation) {
        last_incarnation_ = incarnation;
        std::optional<std::int64_t> resume_step;
        if (!choose_resume_point(incarnation, resume_step)) {
            return true;
        }
        world_.stats.incarnations += 1;
        const auto& scenario = world_.scenario;
        Rng chooser_rng =
            Rng(scenario.seed).derive("scheduler").derive(static_cast<std::uint64_t>(incarnation));
        RankScheduler scheduler({scenario.ranks, scenario.watchdog},
                                [&chooser_rng](std::span<const int> runnable) {
                                    return static_cast<std::size_t>(chooser_rng.below(runnable.size()));
                                });
        JobContext job{scenario,
                       world_.fs,
                       world_.scores,
                       world_.ledger,
                       world_.trace,
                       world_.stats,
                       world_.oracles,
                       world_.faults,
                       scheduler,
                       incarnation,
                       resume_step,
                       {},
                       world_.in_save_window};
        if (resume_step) {
            const auto path =
                join_path(join_path(kOutputDir, checkpoint_dir_name(*resume_step)), kTrainerStateName);
            job.resume_trainer_state = migrate_trainer_state(json::parse(world_.fs.read_file(path)));
        }
        world_.faults.attach(&job);
        world_.oracles.attach(&job);
        world_.oracles.begin_incarnation(scenario.ranks);
        job.record(-1, "start",
                   {{"ranks", scenario.ranks}, {"resume_step", resume_step ? json(*resume_step) : json()}});

        std::optional<CheckpointEvaluationState> final_state;
        bool ended = false;
        try {
            const auto result = scheduler.run([&](int rank) {
                RankTrainer trainer(job, rank);
                trainer.run();
                if (rank == 0) {
                    final_state = trainer.policy_state();
                }
            });
            ended = after_run(result, final_state, incarnation);
        } catch (const SimulatedCrash& crash) {
            apply_crash(crash, incarnation);
        } catch (const WatchdogTimeout& timeout) {
            world_.stats.hangs += 1;
            job.record(-1, "watchdog", {{"hang", timeout.result().hang}});
            world_.oracles.after_incarnation(timeout.result(), count_dead(timeout.result()));
            world_.fs.process_kill();
        }
        world_.faults.attach(nullptr);
        world_.oracles.attach(nullptr);
        return ended;
    }

    bool after_run(const RunResult& result, const std::optional<CheckpointEvaluationState>& final_state,
                   int incarnation) {
        if (result.all_finished()) {
            if (final_state) {
                world_.oracles.at_job_end(*final_state);
            }
            end(Outcome::finished, "trained to the end or stopped by the policy");
            return true;
        }
        const int dead = count_dead(result);
        world_.oracles.after_incarnation(result, dead);
        if (result.hung()) {
            world_.stats.hangs += 1;
            world_.trace.record(world_.stats.virtual_ms, incarnation, -1, "hang",
                                {{"ranks", result.describe()}});
            end(dead > 0 ? Outcome::hung : Outcome::violated, result.hang);
            return true;
        }
        const bool any_failed =
            std::any_of(result.ranks.begin(), result.ranks.end(),
                        [](const RankOutcome& r) { return r.kind == RankOutcome::Kind::failed; });
        if (!any_failed) {
            // Only deaths: the launcher sees the job die and restarts it.
            world_.trace.record(world_.stats.virtual_ms, incarnation, -1, "job_died", {{"dead_ranks", dead}});
            world_.fs.process_kill();
            return false;
        }
        const auto error = first_failure(result);
        world_.trace.record(world_.stats.virtual_ms, incarnation, -1, "job_failed", {{"error", error}});
        if (world_.faults.io_error_fired()) {
            world_.fs.process_kill();  // the job exits on the error; a scheduler restarts it
            return false;
        }
        if (world_.ledger.sidecar_damaged && error.find("sidecar policy restore") != std::string::npos) {
            end(Outcome::failed_explained, error);
            return true;
        }
        end(Outcome::violated, error);
        world_.oracles.violate(Property::P12,
                               "the job failed with no injected fault to explain it: " + error);
        return true;
    }

    World world_;
    Outcome outcome_ = Outcome::finished;
    std::string outcome_detail_;
    int last_incarnation_ = 0;
};

}  // namespace

std::string_view to_string(Outcome outcome) noexcept {
    switch (outcome) {
        case Outcome::finished:
            return "finished";
        case Outcome::failed_explained:
            return "failed_explained";
        case Outcome::resume_failed:
            return "resume_failed";
        case Outcome::hung:
            return "hung";
        case Outcome::violated:
            return "violated";
    }
    return "?";
}

bool ScenarioResult::held(Property property) const noexcept {
    return std::none_of(violations.begin(), violations.end(),
                        [&](const Violation& v) { return v.property == property; });
}

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
    scenario.validate();
    return Simulation(scenario, options).run();
}

}  // namespace ckpt::sim
