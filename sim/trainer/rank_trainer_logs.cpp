// What the trainer logs to TrainerState.log_history (Trainer.log): the training loss at every
// logging_steps step and each evaluation's metrics. Only a rank that writes trainer_state.json
// keeps the list (log_history.hpp).
#include <cmath>

#include "sim/trainer/rank_trainer.hpp"

namespace ckpt::sim {

void RankTrainer::log(std::initializer_list<transformers::LogHistory::Metric> logs) {
    if (should_save()) {
        log_history_.append(logs, view().epoch, global_step_);
    }
}

// The training loss since the last log, rounded to 4 digits as Trainer rounds it. The score model
// has no training loss: a curve falling with the epoch stands in.
void RankTrainer::log_training_loss() {
    log({{"loss", std::round(1e4 / (1.0 + view().epoch)) / 1e4}});
}

// evaluate() logs its metrics before on_evaluate: eval_loss, and the score under its own name when
// it is the tracked metric (compute_metrics returns it then).
void RankTrainer::log_evaluation(double score) {
    if (job_.scenario.trainer.metric_for_best_model == "score") {
        log({{"eval_loss", -score}, {"eval_score", score}});
    } else {
        log({{"eval_loss", -score}});
    }
}

}  // namespace ckpt::sim
