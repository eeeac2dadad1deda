// Classifies a failed rank's exception by its type and, for a rank-zero failure, by the
// operation it names (a field, not the message). Never throws.
#include "sim/trainer/rank_failure.hpp"

#include <algorithm>
#include <string_view>

#include "policy/ports/rank_zero_outcome.hpp"
#include "policy/trigger/rank_zero_operations.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "sim/base/harness_error.hpp"
#include "sim/trainer/transformers_callback_state.hpp"
#include "sim/trainer/transformers_early_stopping.hpp"

namespace ckpt::sim {

RankFailureKind failure_kind(const std::exception& thrown) noexcept {
    if (dynamic_cast<const TrainingArgumentsRefused*>(&thrown) != nullptr) {
        return RankFailureKind::training_args_refused;
    }
    if (dynamic_cast<const HarnessError*>(&thrown) != nullptr) {
        return RankFailureKind::harness_error;
    }
    if (dynamic_cast<const BestModelLoadFailed*>(&thrown) != nullptr) {
        return RankFailureKind::best_model_load;
    }
    if (dynamic_cast<const RefreshKeyError*>(&thrown) != nullptr) {
        return RankFailureKind::refresh_key_error;
    }
    if (dynamic_cast<const TransformersAssertionError*>(&thrown) != nullptr) {
        return RankFailureKind::transformers_assertion;
    }
    if (dynamic_cast<const CallbackStateRestoreFailed*>(&thrown) != nullptr) {
        return RankFailureKind::callback_state_restore;
    }
    if (const auto* failure = dynamic_cast<const RankZeroFailure*>(&thrown);
        failure != nullptr && failure->operation() == std::string_view(kSidecarRestoreOperation)) {
        return RankFailureKind::sidecar_restore;
    }
    return RankFailureKind::other;
}

RankFailureKind failure_kind(const std::exception_ptr& error) noexcept {
    if (!error) {
        return RankFailureKind::other;
    }
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& thrown) {
        return failure_kind(thrown);
    } catch (...) {
    }
    return RankFailureKind::other;
}

RankFailureKind failure_kind(const RankOutcome& rank) noexcept {
    if (rank.thrown != nullptr) {
        return failure_kind(*rank.thrown);  // the scheduler kept the object: no rethrow
    }
    return failure_kind(rank.error);
}

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

RankFailureKind first_failure_kind(const RunResult& result) {
    for (const auto& rank : result.ranks) {
        if (rank.kind == RankOutcome::Kind::failed) {
            return failure_kind(rank);
        }
    }
    return RankFailureKind::other;
}

}  // namespace ckpt::sim
