// Why a rank failed, as a kind the simulation can classify an ending by. The trainer tags the
// error it lets escape; the kind never depends on the message text (an operator's remedy may read
// a path from it: operator_relaunch.hpp).
#pragma once

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

#include "sim/ranks/rank_scheduler.hpp"

namespace ckpt::sim {

enum class RankFailureKind : std::uint8_t {
    other,
    sidecar_restore,         // on_train_begin could not restore the policy from the sidecar
    training_args_refused,   // on_train_begin refused the TrainingArguments (TrainingArgumentsRefused)
    best_model_load,         // load_best_model_at_end or the clean-up found best_model_checkpoint unusable
    harness_error,           // an external callback's process failed the harness (sim/base/harness_error.hpp)
    refresh_key_error,       // Transformers' refresh met a stateful callback class added after the resume
    transformers_assertion,  // Transformers' own code asserted on the arguments (its EarlyStoppingCallback)
    callback_state_restore,  // _load_callback_state raised rebuilding a callback from the checkpoint
};

// Transformers' own failure at the end of training: a torn best model, or a best directory a
// crash removed (the clean-up's os.path.samefile raises).
class BestModelLoadFailed : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// _load_callback_state raised while rebuilding a callback from the resumed checkpoint's
// stateful_callbacks (a TypeError for an argument the class does not take, a refused or invalid
// value): the rebuild's own message, kept whole.
class CallbackStateRestoreFailed : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The kind of the exception a failed rank's body threw (RankOutcome::error), by its type.
RankFailureKind failure_kind(const std::exception& thrown) noexcept;
RankFailureKind failure_kind(const std::exception_ptr& error) noexcept;
// The same for a failed rank, without rethrowing when the scheduler kept the object.
RankFailureKind failure_kind(const RankOutcome& rank) noexcept;

// How an incarnation's ranks ended, as the simulation classifies the ending: the dead ranks, and
// the first failed rank's message (the hang when none failed) and kind.
int count_dead(const RunResult& result);
std::string first_failure(const RunResult& result);
RankFailureKind first_failure_kind(const RunResult& result);

}  // namespace ckpt::sim
