// Runs a rank-zero-only action and broadcasts its outcome, value or error, to every rank in one
// collective: every rank continues with the same value or raises the same RuntimeError. A
// simulated crash is never caught. Depends on the Collective port.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "policy/ports/collective.hpp"

namespace ckpt {

// The RuntimeError every rank raises when a rank-zero-only action failed. It names the
// operation as a field, so a caller can tell the failures apart by type and operation rather
// than by reading the message (whose text is the seed's and may change).
class RankZeroFailure : public RuntimeError {
  public:
    RankZeroFailure(std::string operation, const std::string& message)
        : RuntimeError(message), operation_(std::move(operation)) {}
    const std::string& operation() const noexcept { return operation_; }

  private:
    std::string operation_;
};

// Runs a rank-zero-only action and shares its outcome, success or failure, with every rank in
// one broadcast before any rank can proceed.
//
// Only rank 0 reads and writes the sidecar. If it raised before the next collective, every
// other rank would wait in that collective forever. Putting the result and the error in the
// same broadcast means every rank either continues with the same value or raises the same
// RankZeroFailure: "checkpoint evaluation <operation> failed on global rank zero (<type>): <what>".
//
// `action` returns a JSON object merged into the outcome; the received outcome is returned on
// every rank, read-only and shared by all of them. A simulated crash is not a std::exception and
// is never caught here.
SharedJson run_on_rank_zero_and_share_outcome(Collective& collective, bool is_rank_zero,
                                              std::string_view operation,
                                              const std::function<nlohmann::json()>& action);

}  // namespace ckpt
