// The generators. Every generated state passes CheckpointEvaluationPolicy::validate_state, and
// no score is inf or nan.
#include "properties/support/policy_state_generators.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ckpt::properties {

rc::Gen<double> gen_finite_score() {
    const auto from_bits = rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t bits) {
        const double value = std::bit_cast<double>(bits);
        // An all-ones exponent is inf or nan; clearing its top bit keeps sign and mantissa.
        return std::isfinite(value) ? value : std::bit_cast<double>(bits & ~(std::uint64_t{1} << 62));
    });
    const auto ordinary = rc::gen::map(rc::gen::arbitrary<double>(),
                                       [](double value) { return std::isfinite(value) ? value : 0.0; });
    return rc::gen::oneOf(rc::gen::map(rc::gen::inRange(0, 41), [](int q) { return q / 40.0; }), ordinary,
                          from_bits);
}

rc::Gen<PolicySettings> gen_policy_settings() {
    return rc::gen::build<PolicySettings>(
        rc::gen::set(&PolicySettings::patience,
                     rc::gen::inRange<std::int64_t>(1, std::numeric_limits<std::int64_t>::max())),
        rc::gen::set(&PolicySettings::tie_policy,
                     rc::gen::map(rc::gen::inRange(0, 4), [](int i) { return static_cast<TiePolicy>(i); })),
        rc::gen::set(&PolicySettings::patience_start_step,
                     rc::gen::inRange<std::int64_t>(0, std::numeric_limits<std::int64_t>::max())));
}

rc::Gen<CheckpointEvaluationState> gen_policy_state() {
    const auto counter = rc::gen::inRange<std::int64_t>(0, std::numeric_limits<std::int64_t>::max());
    const auto with_best = rc::gen::build<CheckpointEvaluationState>(
        rc::gen::set(&CheckpointEvaluationState::best_score,
                     rc::gen::map(gen_finite_score(), [](double s) { return std::optional<double>(s); })),
        rc::gen::set(&CheckpointEvaluationState::best_step,
                     rc::gen::map(counter, [](std::int64_t s) { return std::optional<std::int64_t>(s); })),
        rc::gen::set(&CheckpointEvaluationState::lower_score_streak, counter),
        rc::gen::set(&CheckpointEvaluationState::evaluation_count, counter),
        rc::gen::set(&CheckpointEvaluationState::stop_requested),
        rc::gen::set(&CheckpointEvaluationState::best_is_external));
    // Without a best, validate_state allows only a streak (nothing was evaluated yet).
    const auto without_best = rc::gen::build<CheckpointEvaluationState>(
        rc::gen::set(&CheckpointEvaluationState::lower_score_streak, counter));
    return rc::gen::oneOf(without_best, with_best);
}

rc::Gen<CheckpointEvaluationPolicy> gen_policy() {
    return rc::gen::apply(
        [](const PolicySettings& settings, const CheckpointEvaluationState& state) {
            return CheckpointEvaluationPolicy(settings, state);
        },
        gen_policy_settings(), gen_policy_state());
}

}  // namespace ckpt::properties
