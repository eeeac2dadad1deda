// Each script names the behaviour it drives: climbs and falls to exhaustion, the warm-up and
// its boundary, external baselines, loads (accepted, loosely spelled, refused, inconsistent),
// refused and malformed inputs, and what a stopped policy still answers.
#include "sim/conformance/coverage_scripts.hpp"

#include <limits>

#include "sim/conformance/input_spellings.hpp"

namespace ckpt::sim::conformance {
namespace {

using Inputs = std::vector<PolicyInput>;

// initial, improved, lower, ties and lower scores until patience runs out, then one more.
Inputs climb_and_fall(const PolicySettings&) {
    Inputs in{observe(0.5, 10), observe(0.75, 20), observe(0.25, 30), observe(0.75, 40)};
    for (int i = 0; i < 3; ++i) {
        in.push_back(observe(0.25, 50 + 20 * i));
        in.push_back(observe(0.75, 60 + 20 * i));
    }
    for (int i = 0; i < 6; ++i) {
        in.push_back(observe(-0.5, 120 + 10 * i));
    }
    in.push_back(observe(1.0, 200));
    return in;
}

// Lower scores and ties before patience_start_step, an improvement inside the warm-up, then the
// boundary step itself (which counts) and the steps after it.
Inputs warmup(const PolicySettings& settings) {
    const auto start = settings.patience_start_step;
    Inputs in{observe(0.5, 0), observe(0.25, 1), observe(0.5, 2), observe(0.75, 3)};
    if (start > 1) {
        in.push_back(observe(0.25, start - 1));
        in.push_back(observe(0.75, start - 1));
    }
    in.push_back(observe(0.75, start));
    in.push_back(observe(0.5, start));
    in.push_back(observe(0.75, start + 1));
    in.push_back(observe(0.5, start + 2));
    in.push_back(observe(0.25, start + 3));
    return in;
}

// A step-zero baseline becomes an external best; later baselines leave a best alone.
Inputs baselines(const PolicySettings& settings) {
    return {
        BaselineInput{refused_scores()[0], std::nullopt},
        BaselineInput{score(0.5), refused_steps()[0]},
        baseline(0.5),
        baseline(0.9, 3),
        observe(0.5, settings.patience_start_step),
        observe(0.25, settings.patience_start_step + 10),
        observe(0.75, settings.patience_start_step + 20),
        baseline(2.0, 0),
        BaselineInput{score(0.1), step_as_float(4)},
        observe(0.75, settings.patience_start_step + 30),
    };
}

CheckpointEvaluationState state_with(std::optional<double> best, std::optional<std::int64_t> best_step,
                                     std::int64_t streak, std::int64_t count, bool stop, bool external) {
    return {best, best_step, streak, count, stop, external};
}

// Accepted loads in every form, then refused ones, each followed by an observe that shows
// which state the policy holds.
Inputs loads(const PolicySettings& settings) {
    const auto start = settings.patience_start_step;
    const auto near_stop = state_with(0.5, 10, settings.patience - 1, 4, false, false);
    Inputs in{load_state(settings, near_stop, LoadForm::nested), observe(0.25, start + 20)};
    in.push_back(load_state(settings, state_with(0.5, 10, 0, 0, false, true), LoadForm::flat));
    in.push_back(observe(0.5, start + 30));
    in.push_back(load_state(settings, near_stop, LoadForm::nested_loose));
    in.push_back(observe(0.75, start + 40));
    for (auto& refused : refused_loads(settings, near_stop)) {
        in.push_back(std::move(refused));
    }
    const CheckpointEvaluationState inconsistent[] = {
        state_with(std::numeric_limits<double>::quiet_NaN(), 10, 0, 1, false, false),
        state_with(std::numeric_limits<double>::infinity(), 10, 0, 1, false, false),
        state_with(0.5, -1, 0, 1, false, false),
        state_with(std::nullopt, 10, 0, 0, false, false),
        state_with(0.5, std::nullopt, 0, 1, false, false),
        state_with(0.5, 10, -1, 1, false, false),
        state_with(0.5, 10, 0, -1, false, false),
        state_with(std::nullopt, std::nullopt, 0, 2, false, false),
        state_with(std::nullopt, std::nullopt, 0, 0, true, false),
        state_with(std::nullopt, std::nullopt, 0, 0, false, true),
    };
    for (const auto& state : inconsistent) {
        in.push_back(load_state(settings, state, LoadForm::nested));
    }
    in.push_back(load_state_loosely(settings, state_with(2.0, 10, 1, 3, false, true), true));
    in.push_back(observe(2.0, start + 50));
    in.push_back(load_state(settings, {}, LoadForm::flat));
    in.push_back(observe(-1.0, start + 60));
    return in;
}

// Every refused score and step, every malformed line, and the spellings the seed accepts.
Inputs invalid_inputs(const PolicySettings& settings) {
    const auto at = settings.patience_start_step + 10;
    Inputs in{observe(0.5, at)};
    for (const auto& bad : refused_scores()) {
        in.push_back(ObserveInput{bad, step(at)});
    }
    for (const auto& bad : refused_steps()) {
        in.push_back(ObserveInput{score(0.25), bad});
    }
    for (const auto& line : malformed_lines()) {
        in.push_back(MalformedInput{line});
    }
    in.push_back(ObserveInput{score_as_string(0.75), step(at + 1)});
    in.push_back(ObserveInput{score_as_integer(1), step_as_float(at + 2)});
    in.push_back(ObserveInput{score(1.0), StepInput{-0.0, 0}});  // int(-0.0) == 0 == -0.0
    in.push_back(ObserveInput{score(-0.0), step(at + 3)});
    in.push_back(observe(1e300, at + 4));
    in.push_back(observe(5e-324, at + 5));
    return in;
}

// A stop (by patience or by tie_policy stop), then what a stopped policy answers: a refused
// score is still a value_error, a valid one a runtime_error; a baseline or a load still works.
Inputs stops(const PolicySettings& settings) {
    const auto at = settings.patience_start_step + 1;
    Inputs in{observe(0.5, at), observe(0.5, at + 1)};
    for (std::int64_t i = 0; i < settings.patience; ++i) {
        in.push_back(observe(0.25, at + 2 + i));
    }
    in.push_back(observe(0.9, at + 100));
    in.push_back(ObserveInput{refused_scores()[0], step(at + 101)});
    in.push_back(ObserveInput{score(0.9), refused_steps()[0]});
    in.push_back(baseline(0.9));
    in.push_back(load_state(settings, state_with(0.5, 7, 0, 1, true, false), LoadForm::nested));
    in.push_back(observe(0.9, at + 102));
    in.push_back(load_state(settings, state_with(0.5, 7, 0, 1, false, false), LoadForm::nested));
    in.push_back(observe(0.9, at + 103));
    return in;
}

}  // namespace

const std::vector<CoverageScript>& coverage_scripts() {
    static const std::vector<CoverageScript> scripts{
        {"climb_and_fall", climb_and_fall}, {"warmup", warmup}, {"baselines", baselines}, {"loads", loads},
        {"invalid_inputs", invalid_inputs}, {"stops", stops},
    };
    return scripts;
}

}  // namespace ckpt::sim::conformance
