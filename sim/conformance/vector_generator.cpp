// Coverage vectors run each script under every tie policy and three (patience, warm-up)
// configurations; random vectors draw a configuration and a sequence from their own stream.
#include "sim/conformance/vector_generator.hpp"

#include <array>
#include <cmath>

#include "sim/conformance/coverage_scripts.hpp"
#include "sim/conformance/input_spellings.hpp"
#include "sim/conformance/reference_answers.hpp"

namespace ckpt::sim::conformance {
namespace {

constexpr std::array kTiePolicies{TiePolicy::reset, TiePolicy::ignore, TiePolicy::stop, TiePolicy::count};

// Scores on a coarse grid collide often, which is what ties and lowers need.
double draw_score(Rng& rng) {
    if (rng.chance(1, 12)) {
        const std::array special{-0.0, 1e300, -1e300, 5e-324, 0.1, 1.0 / 3.0};
        return rng.pick(special);
    }
    return static_cast<double>(rng.uniform<int>(-4, 8)) / 4.0;
}

ScoreInput draw_score_input(Rng& rng) {
    if (rng.chance(1, 20)) {
        return rng.pick(refused_scores());
    }
    const double value = draw_score(rng);
    if (rng.chance(1, 20)) {
        return score_as_string(value);
    }
    if (rng.chance(1, 20) && value == std::trunc(value) && std::abs(value) < 1e6) {
        return score_as_integer(static_cast<std::int64_t>(value));
    }
    return score(value);
}

StepInput draw_step_input(Rng& rng, std::int64_t& clock) {
    if (rng.chance(1, 20)) {
        return rng.pick(refused_steps());
    }
    clock += rng.uniform<std::int64_t>(0, 12);  // repeats are allowed: the seed does not order steps
    return rng.chance(1, 20) ? step_as_float(clock) : step(clock);
}

CheckpointEvaluationState draw_state(Rng& rng, const PolicySettings& settings) {
    CheckpointEvaluationState state;
    if (rng.chance(4, 5)) {
        state.best_score = draw_score(rng);
        state.best_step = rng.uniform<std::int64_t>(0, 80);
    }
    state.lower_score_streak = rng.uniform<std::int64_t>(0, settings.patience);
    state.evaluation_count = state.best_score ? rng.uniform<std::int64_t>(0, 9) : 0;
    state.stop_requested = state.best_score && rng.chance(1, 6);
    state.best_is_external = state.best_score && rng.chance(1, 6);
    if (rng.chance(1, 8)) {  // break one consistency rule
        switch (rng.below(4)) {
            case 0:
                state.best_score.reset();
                break;
            case 1:
                state.best_step.reset();
                break;
            case 2:
                state.lower_score_streak = -1;
                break;
            default:
                state.stop_requested = true;
                state.best_score.reset();
                break;
        }
    }
    return state;
}

LoadInput draw_load(Rng& rng, const PolicySettings& settings) {
    const auto state = draw_state(rng, settings);
    if (rng.chance(1, 8)) {
        return rng.pick(refused_loads(settings, state));
    }
    if (rng.chance(1, 6)) {
        return load_state_loosely(settings, state, rng.chance(1, 2));
    }
    const std::array forms{LoadForm::nested, LoadForm::nested_loose, LoadForm::flat};
    return load_state(settings, state, rng.pick(forms));
}

PolicyInput draw_input(Rng& rng, const PolicySettings& settings, std::int64_t& clock) {
    const auto roll = rng.below(100);
    if (roll < 6) {
        return BaselineInput{draw_score_input(rng),
                             rng.chance(1, 2) ? std::optional(draw_step_input(rng, clock)) : std::nullopt};
    }
    if (roll < 13) {
        return draw_load(rng, settings);
    }
    if (roll < 17) {
        return MalformedInput{rng.pick(malformed_lines())};
    }
    auto score_input = draw_score_input(rng);
    return ObserveInput{std::move(score_input), draw_step_input(rng, clock)};
}

}  // namespace

std::vector<ConformanceVector> coverage_vectors() {
    struct Shape {
        std::int64_t patience;
        std::int64_t patience_start_step;
    };
    const std::array shapes{Shape{1, 0}, Shape{2, 0}, Shape{3, 30}};
    std::vector<ConformanceVector> vectors;
    for (const auto& script : coverage_scripts()) {
        for (const auto tie : kTiePolicies) {
            for (const auto& shape : shapes) {
                const PolicySettings settings{shape.patience, tie, shape.patience_start_step};
                vectors.push_back(make_vector(
                    std::string("coverage/") + script.name + "/" + tie_policy_name(tie) + "/p" +
                        std::to_string(shape.patience) + "-s" + std::to_string(shape.patience_start_step),
                    settings, script.inputs(settings)));
            }
        }
    }
    return vectors;
}

ConformanceVector random_vector(Rng& rng, const std::string& prefix, std::size_t index) {
    PolicySettings settings;
    settings.patience = rng.uniform<std::int64_t>(1, 4);
    settings.tie_policy = rng.pick(kTiePolicies);
    settings.patience_start_step = rng.chance(1, 2) ? 0 : rng.uniform<std::int64_t>(1, 40);
    std::int64_t clock =
        rng.chance(1, 2) ? 0 : settings.patience_start_step - rng.uniform<std::int64_t>(0, 6);
    clock = clock < 0 ? 0 : clock;
    std::vector<PolicyInput> inputs;
    const auto length = rng.uniform<std::size_t>(1, 24);
    for (std::size_t i = 0; i < length; ++i) {
        inputs.push_back(draw_input(rng, settings, clock));
    }
    return make_vector(prefix + "/" + std::to_string(index), settings, std::move(inputs));
}

std::vector<ConformanceVector> generate_vectors(std::size_t random_count, std::uint64_t seed) {
    auto vectors = coverage_vectors();
    auto rng = Rng(seed).derive("conformance-vectors");
    for (std::size_t i = 0; i < random_count; ++i) {
        vectors.push_back(random_vector(rng, "random", i));
    }
    return vectors;
}

}  // namespace ckpt::sim::conformance
