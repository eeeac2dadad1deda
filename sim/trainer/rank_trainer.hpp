// One rank of the simulated Transformers Trainer, run on its own fiber, with the real callback,
// stateful-callback and policy code inside it (through the trigger port and the callback
// machinery its job hands it) over the simulated disk and process group. Its modelling choices
// are declared below so faults stay inside a declared model. Depends on policy/'s ports and
// callback interfaces, sim/ranks and sim/trainer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/callbacks/trainer_control.hpp"
#include "sim/ranks/sim_collective.hpp"
#include "sim/trainer/log_history.hpp"
#include "sim/trainer/step_outlook.hpp"
#include "sim/trainer/trainer_best.hpp"
#include "sim/trainer/trainer_job.hpp"

namespace ckpt::sim {

// One rank of the simulated Transformers Trainer. Every rank runs this same code on its own
// fiber; the real TriggerCallback, stateful-callback machinery and policy run inside it through
// the simulated disk and process group.
//
// Modelled from REFERENCE.md: the step and epoch loops, DefaultFlowCallback's flags, the order
// inside _maybe_log_save_evaluate (evaluate, then _save_checkpoint, then on_save), the write
// order of _save_checkpoint (weights, optimizer, per-rank RNG state, trainer_state.json last
// and through a plain truncating open), rotation, and resume from a checkpoint.
//
// The scenario's TrainerOptions choose between Transformers' behaviour and the older, kinder
// model for: restoring callback states on resume (restore_callback_states_from_checkpoint),
// fsyncing the checkpoint (checkpoint_fsync; Transformers never does), and where the stop is
// tested (stop_test: Transformers only after a step, so a restored stop trains one more step),
// rotation's order (rotation_order: by directory mtime, stamped from the virtual clock), how
// several callbacks of one class are refreshed (stateful_callbacks_refresh: Transformers appends)
// and where restored callbacks go (restored_callbacks_position: Transformers re-adds them at the
// end). RNG files are named as Transformers names them (rng_state.pth for one process). Its own
// best (metric_for_best_model, greater_is_better) is tracked as TrainerState does, protected in
// rotation, saved on under save_strategy "best", and loaded at the end under
// load_best_model_at_end, followed by the save_total_limit == 1 clean-up (trainer_end.cpp).
// Under save_on_each_node every node's local rank 0 saves as rank 0 does (should_save), on the
// output_dir the nodes share; the ranks of a multi-rank job meet before each step's evaluation or
// save, as DDP's gradient all-reduce makes them. Trainer.log appends to TrainerState.log_history
// at every logging_steps step and every evaluation, and every trainer_state.json holds the list
// (log_history.hpp).
class RankTrainer final : private StepOutlook {
  public:
    RankTrainer(TrainerJob& job, int rank);

    // The fiber body: restore, on_train_begin, train until max_steps or a stop.
    void run();

  private:
    void build_callbacks();
    void find_callbacks();
    void move_restored_callbacks_to_end(const std::vector<bool>& restored);
    void stamp_if_created(const std::string& path);
    void restore_from_checkpoint(std::int64_t step);
    std::unique_ptr<ExportableState> rebuild_callback(const std::string& class_name,
                                                      const nlohmann::json& saved);
    void train_begin();
    void training_loop();
    // DefaultFlowCallback.on_step_end: the flags it sets for `step`, on top of `control`. Here,
    // so that the step loop, which runs it at every step, inlines it.
    TrainerControl default_flow(std::int64_t step, TrainerControl control) const noexcept {
        const auto& trainer = job_.scenario.trainer;
        if (trainer.eval_strategy == EvalStrategy::steps && step % trainer.effective_eval_steps() == 0) {
            control.should_evaluate = true;
        }
        if (step % trainer.logging_steps == 0) {
            control.should_log = true;  // logging_strategy "steps", Transformers' default
        }
        if (trainer.save_strategy == SaveStrategy::steps && step % trainer.save_steps == 0) {
            control.should_save = true;
        }
        if (step >= trainer.max_steps) {
            control.should_training_stop = true;
            if (trainer.save_strategy == SaveStrategy::steps) {
                control.should_save = true;
            }
        }
        return control;
    }
    std::vector<PlannedStep> plain_steps_after(const TrainerControl& returned,
                                               std::size_t limit) const override;
    void maybe_log_save_evaluate();
    // Trainer.log and what the trainer logs (rank_trainer_logs.cpp).
    void log(std::initializer_list<transformers::LogHistory::Metric> logs);
    void log_training_loss();
    void log_evaluation(double score);
    void checkpoint_evaluation();
    void trainer_evaluation(bool requested_by_flow);
    void other_callbacks_on_evaluate(double score, TrainerControl before);
    void save_checkpoint();
    void write_checkpoint_file(const std::string& directory, const char* name, std::string_view bytes);
    void write_trainer_state(const std::string& directory);
    void rotate_checkpoints();
    std::optional<std::int64_t> best_model_checkpoint_step() const;
    void end_of_training();
    void load_best_model();
    void delete_all_but_best_checkpoint();
    void on_save();
    std::vector<const ExportableState*> stateful_callbacks() const;
    TrainerStateView view() const noexcept {
        return {
            global_step_, rank_ == 0,
            static_cast<double>(global_step_) / static_cast<double>(job_.scenario.trainer.steps_per_epoch)};
    }
    bool is_rank_zero() const noexcept { return rank_ == 0; }
    // TrainingArguments' local process zero: the first rank of its node.
    bool is_local_rank_zero() const noexcept {
        return rank_ % (job_.scenario.job.ranks / job_.scenario.job.nodes) == 0;
    }
    // TrainingArguments.should_save: the main process, or every node's local rank 0 under
    // save_on_each_node. It writes the model, the optimizer and trainer_state.json, and rotates.
    bool should_save() const noexcept {
        return is_rank_zero() || (job_.scenario.trainer.save_on_each_node && is_local_rank_zero());
    }

    void emit(const Event& event) { job_.events.emit(event); }

    TrainerJob& job_;
    int rank_;
    SimCollective collective_;
    TrainerControl control_;
    // Transformers' callback list: the trigger callback, then the early-stopping callbacks.
    std::vector<std::unique_ptr<ExportableState>> callbacks_;
    TriggerPort* trigger_ = nullptr;
    std::string trigger_class_;                     // its class name, for a restore that rebuilds it by name
    std::vector<ExportableState*> early_stopping_;  // the machinery's early-stopping callbacks
    // TrainerState.stateful_callbacks as carried since train start or resume. After a resume every
    // rank reads the job's parsed document (resumed_callbacks_); a rank copies it into
    // stored_callbacks_ only when it writes a trainer_state.json of its own.
    const nlohmann::json& stored_callbacks() const noexcept {
        return resumed_callbacks_ != nullptr ? *resumed_callbacks_ : stored_callbacks_;
    }
    const nlohmann::json* resumed_callbacks_ = nullptr;
    nlohmann::json stored_callbacks_;
    std::int64_t global_step_ = 0;
    std::uint64_t agreement_sequence_ = 0;
    std::uint64_t checkpoint_evaluations_ = 0;  // rounds this rank entered in this incarnation
    double last_decision_score_ = 0.0;
    // TrainerState's best, Transformers' own (not the policy's).
    TrainerBest best_;
    // TrainerState.log_history. Every process logs; only a rank that writes trainer_state.json
    // keeps it, since no other rank's list is ever read.
    transformers::LogHistory log_history_;
    bool evaluation_found_new_best_ = false;
    // Whether DefaultFlowCallback asked for this step's (or epoch end's) evaluation, so an
    // evaluation nobody in the trainer asked for is still told apart.
    bool flow_requested_evaluation_ = false;
    // The three events of every step, built once: an Event made for each emit costs a construction
    // and a destructor call through the variant's table, on the run's most frequent events.
    Event step_started_{StepStarted{rank_}};
    Event step_end_{CrashPointPassed{CrashPoint::step_end, rank_}};
    Event step_finished_{StepFinished{rank_, 0}};
};

}  // namespace ckpt::sim
