// One incarnation of the job: the checkpoint it resumes from, whether its weights load, its run on
// the ranks, and what its end means (a crash, a hang, a failure an operator remedies, the end).
#include <algorithm>

#include "policy/base/json_teardown.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "sim/base/json_tree_reader.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/external/external_trigger_factory.hpp"
#include "sim/faults/simulated_crash.hpp"
#include "sim/trainer/in_process_trigger.hpp"
#include "sim/trainer/rank_failure.hpp"
#include "sim/trainer/rank_trainer.hpp"
#include "sim/trainer/saved_weights.hpp"
#include "sim/trainer/trainer_state_file.hpp"
#include "sim/trainer/transformers_callback_state.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"
#include "sim/trainer/transformers_early_stopping.hpp"
#include "sim/world/operator_relaunch.hpp"
#include "sim/world/port_callback_machinery.hpp"
#include "sim/world/refusal_fix.hpp"
#include "sim/world/scenario_simulation.hpp"

namespace ckpt::sim {

// Which checkpoint a new incarnation starts from.
ScenarioSimulation::Start ScenarioSimulation::choose_resume_point(int incarnation,
                                                                  std::optional<std::int64_t>& resume_step) {
    if (incarnation == 0) {
        return Start::began;
    }
    // Reports each step of the policy's resume rule at the moment it happens.
    class ReportedResume final : public ResumeObserver {
      public:
        explicit ReportedResume(ScenarioSimulation& simulation) : sim_(simulation) {}
        bool abandoned = false;
        bool ended = true;  // when abandoned: false once an operator's remedy relaunches the job

        bool on_chosen(const CheckpointEntry& source) override {
            auto& world = sim_.world_;
            const bool complete = checkpoint_is_complete(world.fs, world.ledger, source.step);
            sim_.emit(ResumeSourceChosen{source.step, source.name, complete});
            if (complete) {
                return true;
            }
            if (world.scenario.trainer.resume_rule == ResumeRule::transformers) {
                ended = sim_.end_unless_remedied(
                    Outcome::resume_failed,
                    "get_last_checkpoint picked incomplete " + source.name +
                        ": trainer_state.json is missing or torn (Transformers #35782)",
                    Remedy::delete_incomplete_checkpoint, join_path(kOutputDir, source.name));
            } else {
                sim_.end(Outcome::violated, "resumed from incomplete " + source.name);
            }
            abandoned = true;
            return false;
        }
        void on_removed(const CheckpointEntry& removed) override {
            sim_.world_.trace_sink.record(-1, "remove_incomplete", {{"checkpoint", removed.name}});
        }

      private:
        ScenarioSimulation& sim_;
    };
    ReportedResume observer(*this);
    std::optional<CheckpointEntry> source;
    if (world_.scenario.trainer.resume_rule == ResumeRule::transformers) {
        // The launcher's `if os.path.isdir(output_dir): get_last_checkpoint(output_dir)`:
        // Transformers' own pick, never the port's.
        const auto last = world_.fs.is_dir(kOutputDir)
                              ? transformers::get_last_checkpoint(world_.fs, kOutputDir)
                              : std::nullopt;
        if (last && observer.on_chosen(CheckpointEntry{last->name, last->step})) {
            source = CheckpointEntry{last->name, last->step};
        }
    } else {
        // The fixed rule is the port's launcher code, under test. What it must pick is taken from
        // the simulator's own view first: the rule removes every checkpoint newer than its pick.
        const auto newest_loadable = newest_loadable_checkpoint();
        source = resume_from_checkpoint(world_.fs, kOutputDir, ResumeSourceRule::newest_complete, observer);
        if (!observer.abandoned) {
            emit(FixedResumeRuleReturned{source ? std::optional(source->step) : std::nullopt,
                                         newest_loadable});
        }
    }
    if (observer.abandoned) {
        return failed_start(observer.ended);
    }
    if (source) {
        resume_step = source->step;
        world_.stats.resumes += 1;
        return Start::began;
    }
    if (world_.scenario.trainer.resume_from_checkpoint == ResumeArgument::always_true) {
        // A launcher that restarts with train(resume_from_checkpoint=True): Transformers
        // raises when get_last_checkpoint finds nothing, and every restart fails the same way.
        return failed_start(end_unless_remedied(
            Outcome::resume_failed,
            "ValueError: No valid checkpoint found in output directory (" + std::string(kOutputDir) + ")",
            Remedy::launch_without_resume));
    }
    return Start::began;  // the launcher passed get_last_checkpoint's None: train from scratch
}

// Trainer._load_from_checkpoint loads the weights before anything else and raises when the
// checkpoint has none (a torn safetensors file fails to load too). A missing optimizer,
// scheduler or RNG file is skipped silently or logged, as Transformers does.
bool ScenarioSimulation::weights_whole(std::int64_t step) const {
    const auto directory = transformers::checkpoint_path(kOutputDir, step);
    const auto written = transformers::saved_weights(step, world_.scenario.trainer.weights_shards,
                                                     world_.scenario.trainer.save_safetensors);
    return std::all_of(written.begin(), written.end(), [&](const transformers::WeightsFile& file) {
        return world_.fs.content_equals(FsView::visible, join_path(directory, file.name), file.bytes);
    });
}

bool ScenarioSimulation::trainer_state_damaged(std::int64_t step) const {
    const auto& ledger = world_.ledger;
    const auto record = ledger.checkpoints.find(step);
    if (record == ledger.checkpoints.end()) {
        return false;  // nothing says what was written: no failure is excused
    }
    if (const auto damaged = ledger.checkpoint_damaged.find(step);
        damaged != ledger.checkpoint_damaged.end() && damaged->second) {
        return true;
    }
    const auto path =
        join_path(transformers::checkpoint_path(kOutputDir, step), transformers::kTrainerStateFile);
    if (record->second.holds_whole_write_in(world_.fs, FsView::visible, path)) {
        return false;
    }
    // Interleaved or torn: damaged for a restore only where the callbacks' states read otherwise.
    const auto callbacks_in = [](std::string_view text) {
        const auto parsed = parse_json_text_or_discarded(text);
        return parsed.is_object() && parsed.contains("stateful_callbacks") ? parsed["stateful_callbacks"]
                                                                           : nlohmann::json();
    };
    const auto visible = world_.fs.content_in(FsView::visible, path);
    if (!visible) {
        return true;
    }
    const auto now = callbacks_in(*visible);
    const auto& written = record->second;
    return now.is_null() ||
           (now != callbacks_in(written.trainer_state_bytes.str()) &&
            (written.other_node_bytes.empty() || now != callbacks_in(written.other_node_bytes.str())));
}

std::optional<std::int64_t> ScenarioSimulation::newest_loadable_checkpoint() const {
    std::optional<std::int64_t> newest;
    for (const auto name : world_.fs.entry_names_in(FsView::visible, kOutputDir)) {
        const auto step = transformers::checkpoint_step(name);
        if (step && (!newest || *step > *newest) &&
            world_.fs.is_dir_in(FsView::visible, transformers::checkpoint_path(kOutputDir, *step)) &&
            checkpoint_is_complete(world_.fs, world_.ledger, *step) && weights_whole(*step)) {
            newest = step;
        }
    }
    return newest;
}

ScenarioSimulation::Start ScenarioSimulation::weights_load(std::int64_t step) {
    const auto directory = transformers::checkpoint_path(kOutputDir, step);
    if (weights_whole(step)) {
        return Start::began;
    }
    const auto error = transformers::weights_load_error(world_.fs, directory)
                           .value_or("ValueError: Can't find a valid checkpoint at " + directory);
    if (world_.scenario.trainer.resume_rule == ResumeRule::transformers) {
        return failed_start(end_unless_remedied(Outcome::resume_failed, error,
                                                Remedy::delete_unloadable_checkpoint, directory));
    }
    // The fixed rule promises a checkpoint the trainer can resume from.
    end(Outcome::violated, "the fixed resume rule chose " + directory + ": " + error);
    emit(UnexplainedFailure{error});
    return Start::ended;
}

void ScenarioSimulation::apply_crash(const SimulatedCrash& crash) {
    if (crash.kind() == CrashKind::process_kill) {
        world_.fs.process_kill();
        return;
    }
    const auto report = world_.fs.power_loss(crash.power_loss(), world_.power);
    world_.trace_sink.record(-1, "power_loss",
                             TraceFields()
                                 .integer("kept", static_cast<std::int64_t>(report.kept))
                                 .string("mode", to_string(crash.power_loss()))
                                 .integer("pending", static_cast<std::int64_t>(report.pending))
                                 .integer("torn", static_cast<std::int64_t>(report.torn)));
}

// Runs one incarnation; true when the scenario ended.
bool ScenarioSimulation::run_incarnation(int incarnation) {
    world_.incarnation = incarnation;
    std::optional<std::int64_t> resume_step;
    auto start = choose_resume_point(incarnation, resume_step);
    if (start == Start::began && resume_step) {
        start = weights_load(*resume_step);
    }
    if (start != Start::began) {
        return start == Start::ended;
    }
    world_.stats.incarnations += 1;
    const auto& scenario = world_.scenario;
    // The original's change: an operator who undid part of it still resumes under an edited
    // configuration.
    resumed_with_change_ = resume_step.has_value() && original_.callbacks.resume_change.any();
    resumed_from_ = resume_step;
    Rng chooser_rng = Rng(scenario.seed).derive("scheduler").derive(static_cast<std::uint64_t>(incarnation));
    RankScheduler scheduler({scenario.job.ranks, scenario.job.watchdog},
                            [&chooser_rng](std::span<const int> runnable) {
                                return static_cast<std::size_t>(chooser_rng.below(runnable.size()));
                            });
    InProcessTriggerFactory port_triggers(world_.fs, "sim");
    const PortCallbackMachinery port_machinery;
    const TransformersCallbackState transformers_machinery;
    const bool transformers_restore =
        external_callback_ != nullptr && external_callback_->transformers_restore;
    const PortEarlyStoppingCallbacks port_early_stopping;
    const TransformersEarlyStoppingCallbacks transformers_early_stopping;
    const bool stock_early_stopping =
        configured_callbacks(scenario.callbacks, resume_step.has_value()).early_stopping_callback ==
        EarlyStoppingCallbackKind::transformers;
    std::optional<ExternalTriggerFactory> external_triggers;
    if (external_callback_ != nullptr) {
        external_triggers.emplace(*external_callback_, scenario, world_.fs, world_.clock, incarnation);
    }
    TrainerJob job{scenario,
                   world_.fs,
                   world_.scores,
                   scheduler,
                   *this,
                   world_.clock,
                   world_.checkpoint_mtimes,
                   external_triggers ? static_cast<TriggerFactory&>(*external_triggers) : port_triggers,
                   transformers_restore ? static_cast<const CallbackStateMachinery&>(transformers_machinery)
                                        : port_machinery,
                   stock_early_stopping
                       ? static_cast<const EarlyStoppingCallbacks&>(transformers_early_stopping)
                       : port_early_stopping,
                   incarnation,
                   resume_step,
                   {},
                   nullptr};
    if (resume_step) {
        const auto path = join_path(transformers::checkpoint_path(kOutputDir, *resume_step),
                                    transformers::kTrainerStateFile);
        job.resume_trainer_state = transformers::load_trainer_state(world_.fs.read_bytes(path));
    }
    scheduler_ = &scheduler;
    emit(IncarnationBegan{incarnation, scenario.job.ranks, resume_step});

    bool ended = false;
    try {
        const auto result = scheduler.run([&](int rank) {
            RankTrainer trainer(job, rank);
            trainer.run();
        });
        ended = after_run(result);
    } catch (const SimulatedCrash& crash) {
        apply_crash(crash);
    } catch (const WatchdogTimeout& timeout) {
        world_.stats.hangs += 1;
        world_.stats.watchdog_restarts += 1;
        world_.trace_sink.record(-1, "watchdog", {{"hang", timeout.result().hang}});
        emit(RanksEnded{timeout.result(), count_dead(timeout.result())});
        world_.fs.process_kill();
    }
    if (external_triggers && callback_identity_.is_null()) {
        callback_identity_ = external_triggers->identity();
    }
    emit(IncarnationEnded{});
    tear_down(job.resume_trainer_state.state);  // every rank is gone; dropped bottom-up (json_teardown.hpp)
    return ended;
}

bool ScenarioSimulation::after_run(const RunResult& result) {
    // The harness failed, not the code under test: nothing else about this run is a verdict.
    for (const auto& rank : result.ranks) {
        if (rank.kind == RankOutcome::Kind::failed && failure_kind(rank) == RankFailureKind::harness_error) {
            world_.fs.process_kill();
            end(Outcome::harness_error, rank.message);
            return true;
        }
    }
    const RankFailureKind failed_as =
        result.all_finished() ? RankFailureKind::other : first_failure_kind(result);
    // load_best_model_at_end and the clean-up run after the training loop: a failure there
    // still ends a run that trained to its end.
    if (result.all_finished() || failed_as == RankFailureKind::best_model_load) {
        world_.stats.trained_to_end = 1;
    }
    if (result.all_finished()) {
        emit(JobFinished{});
        // The ledger's stop, not the policy's: the outcome names what the rules decided.
        const bool policy_stop = world_.ledger.current_state.stop_requested;
        world_.stats.stopped_by_policy += policy_stop ? 1 : 0;
        end(Outcome::finished, policy_stop ? "stopped by the policy: patience ran out"
                                           : "trained to the end: max_steps, or another callback's stop");
        return true;
    }
    const int dead = count_dead(result);
    emit(RanksEnded{result, dead});
    if (result.hung()) {
        world_.stats.hangs += 1;
        world_.trace_sink.record(-1, "hang", {{"ranks", result.describe()}});
        if (dead == 0) {
            end(Outcome::violated, result.hang);
            return true;
        }
        return end_unless_remedied(Outcome::hung, result.hang, Remedy::kill_hung_job);
    }
    const bool any_failed = std::any_of(result.ranks.begin(), result.ranks.end(), [](const RankOutcome& r) {
        return r.kind == RankOutcome::Kind::failed;
    });
    if (!any_failed) {
        // Only deaths: the launcher sees the job die and restarts it.
        world_.trace_sink.record(-1, "job_died", {{"dead_ranks", dead}});
        world_.fs.process_kill();
        return false;
    }
    const auto error = first_failure(result);
    world_.trace_sink.record(-1, "job_failed", {{"error", error}});
    if (failed_as == RankFailureKind::training_args_refused) {
        emit(TrainingRefused{error});
        // The user applies the fix the message names and launches again, with the same faults
        // still planned; a message that names no fix ends the job refused.
        const auto fix =
            refusal_fixes_ < kMaxRefusalFixes ? apply_fix_named_in(error, effective_) : std::string_view();
        if (!fix.empty()) {
            ++refusal_fixes_;
            world_.stats.refusals_fixed = 1;
            world_.trace_sink.record(-1, "restart_with_fix", {{"fix", fix}});
            world_.fs.process_kill();
            return false;
        }
        end(Outcome::refused, error);
        return true;
    }
    if (failed_as == RankFailureKind::transformers_assertion) {
        // Transformers' own EarlyStoppingCallback rejected the arguments on every rank before any
        // training: its user sets what the assertion names and launches again.
        const auto fix =
            refusal_fixes_ < kMaxRefusalFixes ? apply_fix_named_in(error, effective_) : std::string_view();
        if (!fix.empty()) {
            ++refusal_fixes_;
            world_.trace_sink.record(-1, "restart_with_fix", {{"fix", fix}});
            world_.fs.process_kill();
            return false;
        }
        end(Outcome::failed_explained, error);
        return true;
    }
    if (failed_as == RankFailureKind::refresh_key_error) {
        // Transformers' own failure, not a refusal of the callback's: the first save after a resume
        // that added a stateful callback fails after the weights. Its user resumes with the
        // callbacks the checkpoint stores (and Transformers' resume then meets the checkpoint the
        // failed save left without trainer_state.json).
        return end_unless_remedied(Outcome::failed_explained, error, Remedy::resume_with_saved_settings);
    }
    if (failed_as == RankFailureKind::best_model_load) {
        // Transformers' own end-of-training failure on a best a crash tore or removed; with
        // no crash before it, nothing explains it.
        if (world_.incarnation > 0) {
            end(Outcome::failed_explained, error);
            return true;
        }
    }
    if (failed_as == RankFailureKind::callback_state_restore && resumed_from_ &&
        trainer_state_damaged(*resumed_from_)) {
        // _load_callback_state cannot rebuild a callback from text the trainer never wrote (finding
        // 26: two nodes' writes interleaved into a garbled argument). Every relaunch would fail
        // the same way: its user deletes that checkpoint, as for weights that do not load.
        return end_unless_remedied(Outcome::resume_failed, error, Remedy::delete_unloadable_checkpoint,
                                   transformers::checkpoint_path(kOutputDir, *resumed_from_));
    }
    if (world_.faults.io_error_fired()) {
        world_.fs.process_kill();  // the job exits on the error; a scheduler restarts it
        return false;
    }
    if (failed_as == RankFailureKind::sidecar_restore && resumed_from_ &&
        trainer_state_damaged(*resumed_from_)) {
        // The callback's own restore, with restore_callback_states_from_checkpoint off, refused
        // the state a damaged trainer_state.json holds (finding 26): that checkpoint goes, as with
        // restore on, whatever the refusal names (a garbled key, or a value it cannot take).
        return end_unless_remedied(Outcome::resume_failed, error, Remedy::delete_unloadable_checkpoint,
                                   transformers::checkpoint_path(kOutputDir, *resumed_from_));
    }
    if (world_.ledger.sidecar_damaged && failed_as == RankFailureKind::sidecar_restore) {
        return end_unless_remedied(Outcome::failed_explained, error, Remedy::delete_damaged_sidecar,
                                   path_named_in(error));
    }
    if (resumed_with_change_) {
        // The user changed the configuration before resuming: a loud refusal may be the right
        // answer, and the callbacks checker (P10) judges whether it was and says why.
        emit(ResumeRefused{error});
        return end_unless_remedied(Outcome::failed_explained, error, Remedy::resume_with_saved_settings);
    }
    end(Outcome::violated, error);
    emit(UnexplainedFailure{error});
    return true;
}

}  // namespace ckpt::sim
