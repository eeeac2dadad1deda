// The result of one policy evaluation and the reason behind it. Reason names and to_dict() keys
// are the seed's and appear in traces and broadcasts, so they are part of the wire format;
// from_dict refuses a malformed payload with ValueError. Depends on nlohmann/json only.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt {

// Why the policy decided what it did. The names are the seed's reason strings, which appear in
// logs, traces and broadcast payloads.
enum class DecisionReason {
    initial,
    improved,
    patience_warmup_lower,
    patience_warmup_tie,
    lower,
    patience_exhausted,
    tie_reset,
    tie_stop,
    tie_counted,
    tie_ignored,
};

std::string_view to_string(DecisionReason reason);
// Throws ValueError for a name that is not one of the reasons above.
DecisionReason parse_decision_reason(std::string_view name);

// The result of comparing one evaluation with the retained best. A plain value: it is built on
// the hot path without allocating, and travels between ranks as to_dict().
struct CheckpointEvaluationDecision {
    double score = 0.0;
    std::int64_t step = 0;
    bool should_save = false;
    bool should_stop = false;
    DecisionReason reason = DecisionReason::initial;
    double best_score = 0.0;
    std::int64_t best_step = 0;
    std::int64_t lower_score_streak = 0;
    std::int64_t evaluation_count = 0;
    bool best_is_external = false;

    // Whether this result replaced the best checkpoint.
    bool improved() const noexcept { return should_save; }

    nlohmann::json to_dict() const;
    // Restores a decision received over a broadcast. Requires the seed's fields (best_is_external
    // is optional) and coerces them as the seed does; throws ValueError otherwise.
    static CheckpointEvaluationDecision from_dict(const nlohmann::json& payload);

    friend bool operator==(const CheckpointEvaluationDecision&,
                           const CheckpointEvaluationDecision&) = default;
};

}  // namespace ckpt
