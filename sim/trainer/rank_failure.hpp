// Why a rank failed, as a kind the simulation can classify an ending by. The trainer tags the
// error it lets escape; nothing downstream reads the message text.
#pragma once

#include <cstdint>
#include <exception>

namespace ckpt::sim {

enum class RankFailureKind : std::uint8_t {
    other,
    sidecar_restore,        // on_train_begin could not restore the policy from the sidecar
    training_args_refused,  // on_train_begin refused the TrainingArguments (TrainingArgumentsRefused)
};

// The kind of the exception a failed rank's body threw (RankOutcome::error).
RankFailureKind failure_kind(const std::exception_ptr& error) noexcept;

}  // namespace ckpt::sim
