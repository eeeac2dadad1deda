// The training loop, _save_checkpoint's write order, rotation and resume, as REFERENCE.md
// describes Transformers. Every step is deterministic given the scenario and the scheduler.
#include "sim/trainer/rank_trainer.hpp"

#include <algorithm>

#include "policy/ports/file_system_error.hpp"
#include "sim/events/job_constants.hpp"
#include "sim/trainer/checkpoint_rotation.hpp"
#include "sim/trainer/saved_weights.hpp"
#include "sim/trainer/trainer_state_file.hpp"
#include "sim/trainer/transformers_callback_state.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"

namespace ckpt::sim {

using nlohmann::json;

namespace {

// The export of a trainer_state.json write, shared with the ledger's record (not copied).
std::shared_ptr<const json> shared_export(json&& states) {
    return std::make_shared<const json>(std::move(states));
}

}  // namespace

RankTrainer::RankTrainer(TrainerJob& job, int rank)
    : job_(job), rank_(rank), collective_(job.scheduler, rank) {
    build_callbacks();
}

// ---- start -----------------------------------------------------------------------------------

void RankTrainer::train_begin() {
    if (job_.resume_step) {
        restore_from_checkpoint(*job_.resume_step);
    } else {
        // Transformers fills TrainerState.stateful_callbacks when the Trainer is built.
        stored_callbacks_ = job_.callback_states.export_states(stateful_callbacks());
    }
    // CallbackHandler.on_train_begin clears the stop flag before the callbacks run.
    control_.should_training_stop = false;
    collective_.set_waiting_point("on_train_begin");
    TrainingArguments args;
    args.output_dir = kOutputDir;
    args.save_strategy = std::string(kSaveStrategyNames.name(job_.scenario.trainer.save_strategy));
    args.save_total_limit = job_.scenario.trainer.save_total_limit;
    args.metric_for_best_model = job_.scenario.trainer.tracked_metric();
    args.load_best_model_at_end = job_.scenario.trainer.load_best_model_at_end;
    args.greater_is_better = job_.scenario.trainer.tracked_greater_is_better();
    args.eval_strategy = std::string(kEvalStrategyNames.name(job_.scenario.trainer.eval_strategy));
    args.restore_callback_states_from_checkpoint =
        job_.scenario.trainer.restore_callback_states_from_checkpoint;
    args.refresh_appends_duplicate_states =
        job_.callback_states.refresh_appends_duplicates(job_.scenario.trainer);
    for (const auto& [class_name, data] : stored_callbacks().items()) {
        if (data.is_array()) {
            args.stateful_classes_with_several_callbacks.push_back(class_name);
        }
    }
    for (const auto* callback : stateful_callbacks()) {
        auto name = callback->class_name();
        auto& lacking = args.stateful_classes_the_checkpoint_lacks;
        if (!stored_callbacks().contains(name) &&
            std::find(lacking.begin(), lacking.end(), name) == lacking.end()) {
            lacking.push_back(std::move(name));
        }
    }
    // CallbackHandler.on_train_begin runs the callbacks in list order; Transformers' own
    // early-stopping callback asserts there, alike on every rank.
    for (const auto& callback : callbacks_) {
        if (dynamic_cast<TriggerPort*>(callback.get()) == trigger_) {
            trigger_->on_train_begin(args, view(), control_);
        } else if (job_.early_stopping.is_one(*callback)) {
            job_.early_stopping.on_train_begin(*callback, job_.scenario.trainer, best_.best_metric);
        }
    }
    if (is_rank_zero()) {
        // Recovery has republished whatever a cut-short commit left: the save window closes.
        emit(TrainBegan{trigger_->reported_policy_state(), job_.resume_step.has_value()});
        emit(RecoveryFinished{});
    }
    if (job_.scenario.score.external_baseline) {
        const double baseline = job_.scores.baseline();
        trigger_->establish_external_baseline(baseline);
        if (is_rank_zero()) {
            emit(BaselineEstablished{baseline, trigger_->reported_policy_state()});
        }
    }
    emit(RankStateShared{rank_, agreement_sequence_++, trigger_->reported_policy_state()});
}

// ---- the loop ----------------------------------------------------------------------------------

void RankTrainer::run() {
    train_begin();
    training_loop();
    end_of_training();
    trigger_->on_rank_finished();
}

void RankTrainer::training_loop() {
    const auto& s = job_.scenario;
    const std::int64_t epochs =
        (s.trainer.max_steps + s.trainer.steps_per_epoch - 1) / s.trainer.steps_per_epoch;
    // A resume skips the batches of the current epoch that were already trained.
    // Transformers tests the stop only after a step (and after an epoch end); the older model
    // also tested it before each step, so a stop restored at on_train_begin trained nothing.
    const bool entry_test = s.trainer.stop_test == StopTest::before_step;
    const auto may_enter = [&] { return !entry_test || !control_.should_training_stop; };
    for (std::int64_t epoch = global_step_ / s.trainer.steps_per_epoch;
         epoch < epochs && may_enter() && global_step_ < s.trainer.max_steps; ++epoch) {
        control_.should_epoch_stop = false;  // on_epoch_begin
        const std::int64_t epoch_end = std::min((epoch + 1) * s.trainer.steps_per_epoch, s.trainer.max_steps);
        while (global_step_ < epoch_end && may_enter()) {
            control_.should_log = false;  // on_step_begin
            control_.should_evaluate = false;
            control_.should_save = false;
            flow_requested_evaluation_ = false;
            emit(step_started_);
            ++global_step_;
            control_ = default_flow(global_step_, control_);
            flow_requested_evaluation_ = control_.should_evaluate;
            trigger_->on_step_end(view(), control_, *this);
            maybe_log_save_evaluate();
            emit(step_end_);
            std::get<StepFinished>(step_finished_).global_step = global_step_;
            emit(step_finished_);
            if (control_.should_epoch_stop || control_.should_training_stop) {
                break;
            }
        }
        if (s.trainer.eval_strategy == EvalStrategy::epoch) {
            control_.should_evaluate = true;  // DefaultFlowCallback.on_epoch_end
            flow_requested_evaluation_ = true;
        }
        if (s.trainer.save_strategy == SaveStrategy::epoch) {
            control_.should_save = true;  // DefaultFlowCallback.on_epoch_end
        }
        trigger_->on_epoch_end(view(), control_);
        maybe_log_save_evaluate();
        emit(EpochEnded{rank_, global_step_});
        if (control_.should_training_stop) {
            break;
        }
    }
}

void RankTrainer::maybe_log_save_evaluate() {
    if (control_.should_log) {
        control_.should_log = false;  // CallbackHandler.on_log; no callback here has an on_log
        log_training_loss();
    }
    if ((control_.should_evaluate || control_.should_save) && job_.scenario.job.ranks > 1) {
        // DDP's gradient all-reduce keeps the ranks in step: no rank evaluates or saves step s
        // before every rank has trained it. The ranks' fibers otherwise meet only at the
        // callbacks' collectives, so a rank beside a dead one would write a checkpoint alone.
        collective_.set_waiting_point("gradient all-reduce");
        collective_.barrier();
    }
    // Trainer._evaluate runs only when the flag is set; CallbackHandler.on_evaluate clears it.
    // Whether the evaluation is the policy's is the callback's own pending flag.
    if (control_.should_evaluate) {
        const bool checkpoint_evaluation_due = trigger_->consume_checkpoint_evaluation();
        const bool requested_by_flow = flow_requested_evaluation_;
        control_.should_evaluate = false;  // CallbackHandler.on_evaluate
        flow_requested_evaluation_ = false;
        evaluation_found_new_best_ = false;
        if (checkpoint_evaluation_due) {
            checkpoint_evaluation();
        } else {
            trainer_evaluation(requested_by_flow);
        }
        if (job_.scenario.trainer.save_strategy == SaveStrategy::best) {
            control_.should_save = evaluation_found_new_best_;
        }
    }
    if (control_.should_save) {
        save_checkpoint();
        on_save();
    }
}

// ---- evaluation ----------------------------------------------------------------------------

void RankTrainer::checkpoint_evaluation() {
    emit(EvaluationStarted{rank_});  // on rank 0 it also counts the evaluation and its time
    const double score = job_.scores.score(global_step_, job_.incarnation);
    log_evaluation(score);
    const auto round = checkpoint_evaluations_++;
    if (is_rank_zero()) {
        emit(EvaluationScored{round, global_step_, score});
    }
    // The policy's round reports its moments to these hooks, for the trace, the fault plan's aim
    // and the crash point inside the round. No check reads them, and the trainer's own work (the
    // other callbacks' on_evaluate below) does not happen in them.
    class TrainerHooks final : public EvaluationRoundObserver {
      public:
        TrainerHooks(RankTrainer& trainer, double score) : trainer_(trainer), score_(score) {}

        void before_rank_zero_outcome(const char* operation) override {
            trainer_.collective_.set_waiting_point(operation);
        }
        void on_decision(const CheckpointEvaluationState& prior, const CheckpointEvaluationDecision& decision,
                         const CheckpointEvaluationState& after) override {
            trainer_.emit(DecisionMade{trainer_.global_step_, score_, prior, decision, after});
        }
        void on_rank_state(const CheckpointEvaluationState& state) override {
            trainer_.emit(RankStateShared{trainer_.rank_, trainer_.agreement_sequence_++, state});
        }
        void on_stop_in_force() override { trainer_.emit(StopInForce{trainer_.rank_}); }
        void after_recorded(const CheckpointEvaluationDecision& /*decision*/) override {
            trainer_.emit(CrashPointPassed{CrashPoint::after_evaluation, trainer_.rank_});
        }
        void after_persist(const CheckpointEvaluationState& state) override {
            trainer_.emit(SidecarPersisted{state});
        }

      private:
        RankTrainer& trainer_;
        double score_;
    };
    TrainerHooks hooks(*this, score);
    const TrainerControl before = control_;
    collective_.set_waiting_point("on_evaluate");
    trigger_->evaluate(control_, score, global_step_, hooks);
    last_decision_score_ = score;
    emit(EvaluationReturned{rank_, round, global_step_, before.should_save, control_.should_save,
                            before.should_training_stop, control_.should_training_stop});
    other_callbacks_on_evaluate(score, before);
}

// An evaluation the callback did not ask for: DefaultFlowCallback's (eval_strategy), or one
// nobody in the trainer asked for, which the schedule judges as the callback's.
void RankTrainer::trainer_evaluation(bool requested_by_flow) {
    if (requested_by_flow) {
        emit(TrainerEvaluationStarted{rank_, global_step_});
    } else {
        emit(EvaluationStarted{rank_});
    }
    const double score = job_.scores.score(global_step_, job_.incarnation);
    log_evaluation(score);
    other_callbacks_on_evaluate(score, control_);
}

// CallbackHandler.on_evaluate runs the other callbacks with the control they were handed: an
// early-stopping callback only ever sets the stop, so running it on the control the trigger
// callback found and merging its stop is the handler's order without a hook. Then
// _determine_best_metric, after evaluate() returned.
void RankTrainer::other_callbacks_on_evaluate(double score, TrainerControl before) {
    TrainerControl early_stopping = before;
    const EvaluationReport report{score, job_.scenario.trainer, best_.best_metric};
    for (auto* callback : early_stopping_) {
        job_.early_stopping.on_evaluate(*callback, report, early_stopping);
    }
    if (!before.should_training_stop && early_stopping.should_training_stop) {
        control_.should_training_stop = true;
        emit(EarlyStoppingRequested{rank_});
    }
    evaluation_found_new_best_ = best_.determine_best_metric(job_.scenario.trainer, score, global_step_);
    emit(MetricsEvaluated{global_step_, score, rank_});
}

// ---- _save_checkpoint ------------------------------------------------------------------------

void RankTrainer::write_checkpoint_file(const std::string& directory, const char* name,
                                        std::string_view bytes) {
    const auto path = join_path(directory, name);
    stamp_if_created(path);
    job_.fs.write_file(path, bytes);
    if (job_.scenario.trainer.checkpoint_fsync) {
        job_.fs.fsync_file(path);
    }
}

void RankTrainer::stamp_if_created(const std::string& path) {
    // Creating an entry sets its directory's mtime; rewriting a file in place does not.
    if (!job_.fs.exists_in(FsView::visible, path)) {
        job_.mtimes.touch(transformers::checkpoint_folder(global_step_), job_.clock.now_ms());
    }
}

void RankTrainer::write_trainer_state(const std::string& directory) {
    // Refresh every exportable callback, then write trainer_state.json last.
    const auto callbacks = stateful_callbacks();
    auto live = job_.callback_states.export_states(callbacks);
    if (job_.callback_states.refresh_appends_duplicates(job_.scenario.trainer)) {
        // Appending needs a document of this rank's own: the first write after a resume copies.
        stored_callbacks_ = transformers_refresh(
            resumed_callbacks_ != nullptr ? *resumed_callbacks_ : std::move(stored_callbacks_), live);
    } else {
        stored_callbacks_ = job_.callback_states.refresh_states(stored_callbacks(), callbacks, live);
    }
    resumed_callbacks_ = nullptr;
    // Member by member: an initializer list would build each member twice.
    json state = json::object();
    auto& members = state.get_ref<json::object_t&>();
    members.emplace("global_step", global_step_);
    // Set on every rank from its process index: a node's local rank 0 writes false for the world.
    members.emplace("is_local_process_zero", is_local_rank_zero());
    members.emplace("is_world_process_zero", is_rank_zero());
    members.emplace("epoch", static_cast<double>(global_step_) /
                                 static_cast<double>(job_.scenario.trainer.steps_per_epoch));
    members.emplace("max_steps", job_.scenario.trainer.max_steps);
    members.emplace("eval_steps", job_.scenario.trainer.effective_eval_steps());
    members.emplace("save_steps", job_.scenario.trainer.save_steps);
    members.emplace("stateful_callbacks", std::move(stored_callbacks_));  // lent to the document, not copied
    best_.write_to(state);
    FileBytes bytes;
    try {
        bytes = log_history_.document(state);
    } catch (...) {
        stored_callbacks_ = std::move(state["stateful_callbacks"]);
        throw;
    }
    stored_callbacks_ = std::move(state["stateful_callbacks"]);
    const auto path = join_path(directory, transformers::kTrainerStateFile);
    // open(path, "w") truncates before json.dump writes: a crash in between leaves it empty.
    stamp_if_created(path);
    job_.fs.write_file(path, "");
    emit(CrashPointPassed{CrashPoint::inside_trainer_state_write, rank_});
    job_.fs.write_bytes(path, bytes);
    // Recorded as soon as the bytes are in the page cache (a killed process leaves them there,
    // complete), and again once they are durable. The record takes the export and the bytes by
    // move; both events read them from there.
    const auto last = std::make_shared<const WrittenTrainerState>(
        WrittenTrainerState{global_step_, last_decision_score_, trigger_->reported_policy_state(),
                            shared_export(std::move(live)), std::move(bytes), rank_});
    job_.last_trainer_state = last;
    const TrainerStateWritten written{last->step,  last->score, last->policy_state, last->callback_states,
                                      last->bytes, last->rank};
    emit(written);
    emit(CrashPointPassed{CrashPoint::before_checkpoint_fsync, rank_});
    if (job_.scenario.trainer.checkpoint_fsync) {
        job_.fs.fsync_file(path);
        job_.fs.fsync_dir(directory);
        job_.fs.fsync_dir(kOutputDir);
        emit(written);
    }
}

void RankTrainer::save_checkpoint() {
    const auto directory = transformers::checkpoint_path(kOutputDir, global_step_);
    if (is_rank_zero()) {
        emit(CheckpointStarted{global_step_});
    }
    if (!job_.fs.exists_in(FsView::visible, directory)) {
        job_.mtimes.touch(transformers::checkpoint_folder(global_step_), job_.clock.now_ms());
    }
    make_dirs(job_.fs, directory);
    if (should_save()) {
        for (const auto& file :
             transformers::saved_weights(global_step_, job_.scenario.trainer.weights_shards,
                                         job_.scenario.trainer.save_safetensors)) {
            write_checkpoint_file(directory, file.name.c_str(), file.bytes);
        }
        write_checkpoint_file(directory, "config.json", "{}");
        write_checkpoint_file(directory, "training_args.bin", "args");
    }
    // After the model is written, so this checkpoint can become the best in the same save.
    if (job_.scenario.trainer.tracks_best_global_step() && best_.best_global_step) {
        const auto best_dir = transformers::checkpoint_path(kOutputDir, *best_.best_global_step);
        if (job_.fs.exists_in(FsView::visible, best_dir)) {
            best_.best_model_checkpoint = best_dir;
        }
    }
    emit(CrashPointPassed{CrashPoint::inside_checkpoint_write, rank_});
    if (!job_.scenario.trainer.save_only_model) {
        if (should_save()) {
            write_checkpoint_file(directory, "optimizer.pt", "optimizer");
            write_checkpoint_file(directory, "scheduler.pt", "scheduler");
        }
        // _save_rng_state: one process writes rng_state.pth, several write rng_state_{rank}.pth.
        const auto rng_name = job_.scenario.job.ranks <= 1 ? std::string("rng_state.pth")
                                                           : "rng_state_" + std::to_string(rank_) + ".pth";
        write_checkpoint_file(directory, rng_name.c_str(), "rng");
    }
    if (should_save()) {
        if (job_.scenario.trainer.checkpoint_fsync) {
            job_.fs.fsync_dir(directory);
        }
        write_trainer_state(directory);
        emit(RotationStarted{});
        rotate_checkpoints();
    }
    emit(CrashPointPassed{CrashPoint::after_checkpoint_write, rank_});
}

void RankTrainer::rotate_checkpoints() {
    // Transformers protects its best_model_checkpoint. Without one, the older model's
    // protect_best_in_rotation keeps the checkpoint final_checkpoint names instead.
    std::optional<std::int64_t> protected_step = best_model_checkpoint_step();
    if (!best_.best_model_checkpoint && job_.scenario.trainer.protect_best_in_rotation) {
        protected_step = linked_checkpoint_step(job_.fs);
    }
    const auto sorted = sorted_checkpoints(transformers::checkpoints_by_step(job_.fs, kOutputDir),
                                           job_.scenario.trainer.rotation_order, job_.mtimes);
    const auto rotated =
        checkpoints_to_rotate(sorted, job_.scenario.trainer.save_total_limit, protected_step);
    for (const auto& entry : rotated) {
        emit(CrashPointPassed{CrashPoint::during_rotation, rank_});
        try {
            job_.fs.remove_tree(join_path(kOutputDir, entry.name));  // rmtree(ignore_errors=True)
        } catch (const FileSystemError&) {
        }
    }
    if (!rotated.empty()) {
        job_.mtimes.forget_unless([&](const std::string& name) { return job_.fs.entry_may_exist(name); });
    }
}

void RankTrainer::on_save() {
    control_.should_save = false;  // CallbackHandler.on_save clears the flag first
    const bool commits = trigger_->commit_pending();
    collective_.set_waiting_point("on_save");
    emit(SaveCallbackStarted{rank_});
    trigger_->on_save(view(), control_);
    if (is_rank_zero()) {
        emit(SaveCallbackReturned{global_step_});
        if (commits && job_.last_trainer_state) {
            // The callback may have made an unfsynced checkpoint durable before linking it:
            // the ledger reads the disk again to learn whether it did.
            const auto last = job_.last_trainer_state;  // this rank's, or another node's written after it
            emit(TrainerStateWritten{last->step, last->score, last->policy_state, last->callback_states,
                                     last->bytes, last->rank});
        }
        if (commits) {
            emit(SidecarPersisted{trigger_->reported_policy_state()});
            emit(Committed{global_step_});
        }
    }
    emit(CrashPointPassed{CrashPoint::after_on_save, rank_});
}

}  // namespace ckpt::sim
