// The seed's best-only retention policy with patience: settings, durable state and observe().
// observe() allocates nothing and does no I/O; rejected input changes nothing (ValueError), and
// observing after a stop is a RuntimeError. Loading a state refuses other settings or versions.
// Depends on core/, python/ and base/ only.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "policy/core/tie_policy.hpp"

namespace ckpt {

// The policy's configuration. It is part of the durable state: a resumed run must not silently
// change its early-stop semantics, so load_state_dict refuses settings that differ.
struct PolicySettings {
    std::int64_t patience = 3;
    TiePolicy tie_policy = TiePolicy::reset;
    // Evaluations before this step are health checks: they may still improve the best, but a
    // drop or a plateau there never consumes patience.
    std::int64_t patience_start_step = 0;

    // Throws ValueError with the seed's messages.
    void validate() const;
    friend bool operator==(const PolicySettings&, const PolicySettings&) = default;
};

// Best-only retention with patience, a port of the seed's CheckpointEvaluationPolicy.
//
// The first finite score establishes the initial checkpoint. Later scores save only when
// strictly greater than the best. Strictly lower scores lengthen the streak and stop at
// `patience`. Equal scores follow the tie policy. observe() is the hot path: it allocates
// nothing and does no I/O.
class CheckpointEvaluationPolicy {
  public:
    static constexpr int kStateVersion = 1;

    CheckpointEvaluationPolicy() = default;
    // Validates the settings and the state (ValueError with the seed's messages).
    explicit CheckpointEvaluationPolicy(PolicySettings settings, CheckpointEvaluationState state = {});
    // The seed's constructor over loosely typed arguments: int() of patience and
    // patience_start_step, str().strip().lower() of tie_policy.
    static CheckpointEvaluationPolicy from_loose_settings(const nlohmann::json& patience,
                                                          const nlohmann::json& tie_policy,
                                                          const nlohmann::json& patience_start_step);

    // Records a score and returns the save/stop decision. Rejected input (non-finite score,
    // negative step) throws ValueError and changes nothing; observing after a stop throws
    // RuntimeError.
    CheckpointEvaluationDecision observe(double score, std::int64_t step);
    // The same with the seed's coercion of JSON-typed score and step.
    CheckpointEvaluationDecision observe(const nlohmann::json& score, const nlohmann::json& step);

    // Records a run-local reference score (a step-zero validation) without counting it as an
    // evaluation. Once a state holds a best (for example after a resume), it is left unchanged.
    const CheckpointEvaluationState& establish_external_baseline(double score, std::int64_t step = 0);
    const CheckpointEvaluationState& establish_external_baseline(const nlohmann::json& score,
                                                                 const nlohmann::json& step);

    // The seed's JSON state: version, settings and the state mapping.
    nlohmann::json state_dict() const;
    // Restores a state_dict() payload (or a flat state without "state"), refusing a different
    // version or settings. On error nothing changes.
    void load_state_dict(const nlohmann::json& payload);
    // Builds a policy with the settings found in `payload`, then loads it.
    static CheckpointEvaluationPolicy from_state_dict(const nlohmann::json& payload);

    // The seed's consistency rules for a state; throws ValueError.
    static void validate_state(const CheckpointEvaluationState& state);

    const PolicySettings& settings() const noexcept { return settings_; }
    const CheckpointEvaluationState& state() const noexcept { return state_; }

  private:
    CheckpointEvaluationDecision decide(double score, std::int64_t step, bool should_save, bool should_stop,
                                        DecisionReason reason) const noexcept;
    CheckpointEvaluationDecision observe_checked(double score, std::int64_t step);
    const CheckpointEvaluationState& baseline_checked(double score, std::int64_t step);

    PolicySettings settings_;
    CheckpointEvaluationState state_;
};

}  // namespace ckpt

// observe()'s inline definition, after the class it belongs to.
#include "policy/core/checkpoint_evaluation_observe.hpp"
