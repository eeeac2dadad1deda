// What the trainer logs to TrainerState.log_history (Trainer.log): the training loss at every
// logging_steps step, with the gradients' norm when they are clipped, and each evaluation's
// metrics. Only a rank that writes trainer_state.json keeps the list (log_history.hpp).
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/base/rng.hpp"
#include "sim/trainer/rank_trainer.hpp"

namespace ckpt::sim {

void RankTrainer::log(std::initializer_list<transformers::LogHistory::Metric> logs) {
    if (should_save()) {
        log_history_.append(logs, view().epoch, global_step_);
    }
}

// The training loss since the last log, rounded to 4 digits as Trainer rounds it. The score model
// has no training loss: a curve falling with the epoch stands in.
// _maybe_log_save_evaluate adds "grad_norm" when clip_grad_norm_ ran (max_grad_norm above 0): the
// last step's norm before clipping, unrounded. The simulated one is a pure function of the seed and
// the step, so every rank and every replay logs the same. Under gradient_overflows a logged step in
// three overflows: its norm is inf or nan, which json.dumps writes as Infinity and NaN (finding 28).
void RankTrainer::log_training_loss() {
    const double loss = std::round(1e4 / (1.0 + view().epoch)) / 1e4;
    const auto& trainer = job_.scenario.trainer;
    if (!(trainer.max_grad_norm > 0.0)) {
        log({{"loss", loss}});
        return;
    }
    Rng rng = Rng(job_.scenario.seed).derive("grad_norm").derive(static_cast<std::uint64_t>(global_step_));
    double norm = 0.05 + 4.0 * rng.unit();
    if (trainer.gradient_overflows && rng.chance(1, 3)) {
        norm = rng.chance(1, 2) ? std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::quiet_NaN();
    }
    log({{"grad_norm", norm}, {"loss", loss}});
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
