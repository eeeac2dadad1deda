// Classifies a failed rank's exception by type; see failure_kind for the one text test left.
// Never throws.
#include "sim/trainer/rank_failure.hpp"

#include <string_view>

#include "policy/base/errors.hpp"

namespace ckpt::sim {

// The policy reports every rank-zero failure as one RuntimeError type, so the restore's
// envelope is told apart by the operation it names. This is the only place that reads it;
// a typed policy error would replace the text test here alone.
RankFailureKind failure_kind(const std::exception_ptr& error) noexcept {
    if (!error) {
        return RankFailureKind::other;
    }
    try {
        std::rethrow_exception(error);
    } catch (const RuntimeError& failure) {
        if (std::string_view(failure.what()).find("sidecar policy restore") != std::string_view::npos) {
            return RankFailureKind::sidecar_restore;
        }
    } catch (...) {
    }
    return RankFailureKind::other;
}

}  // namespace ckpt::sim
