// Model-based test: random command sequences run against the policy and against a deliberately
// naive model of the seed's rules written here, independently of the implementation.
#include <limits>
#include <optional>
#include <rapidcheck.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "policy/base/errors.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"

namespace ckpt {
namespace {

struct Model {
    PolicySettings settings;
    std::optional<double> best;
    std::optional<std::int64_t> best_step;
    std::int64_t streak = 0;
    std::int64_t count = 0;
    bool stop = false;
    bool external = false;

    // The rules as a table of plain cases, in the seed's order of precedence.
    std::string observe(double score, std::int64_t step) {
        count += 1;
        if (!best || score > *best) {
            const char* reason = best ? "improved" : "initial";
            best = score;
            best_step = step;
            streak = 0;
            stop = false;
            external = false;
            return reason;
        }
        if (step < settings.patience_start_step) {
            streak = 0;
            stop = false;
            return score < *best ? "patience_warmup_lower" : "patience_warmup_tie";
        }
        if (score < *best || settings.tie_policy == TiePolicy::count) {
            streak += 1;
            stop = streak >= settings.patience;
            if (stop) {
                return "patience_exhausted";
            }
            return score < *best ? "lower" : "tie_counted";
        }
        if (settings.tie_policy == TiePolicy::reset) {
            streak = 0;
            stop = false;
            return "tie_reset";
        }
        if (settings.tie_policy == TiePolicy::stop) {
            stop = true;
            return "tie_stop";
        }
        stop = false;
        return "tie_ignored";
    }

    void matches(const CheckpointEvaluationPolicy& policy) const {
        const auto& s = policy.state();
        RC_ASSERT(s.best_score == best);
        RC_ASSERT(s.best_step == best_step);
        RC_ASSERT(s.lower_score_streak == streak);
        RC_ASSERT(s.evaluation_count == count);
        RC_ASSERT(s.stop_requested == stop);
        RC_ASSERT(s.best_is_external == external);
    }
};

using Command = rc::state::Command<Model, CheckpointEvaluationPolicy>;

// Scores on a coarse grid so that ties are common.
rc::Gen<double> gen_score() {
    return rc::gen::map(rc::gen::inRange(0, 6), [](int q) { return q / 4.0; });
}

struct Observe : Command {
    double score = *gen_score();
    std::int64_t step = *rc::gen::inRange<std::int64_t>(0, 40);

    void apply(Model& model) const override {
        if (!model.stop) {
            model.observe(score, step);
        }
    }
    void run(const Model& model, CheckpointEvaluationPolicy& policy) const override {
        Model expected = model;
        if (model.stop) {
            RC_ASSERT_THROWS_AS(policy.observe(score, step), RuntimeError);
        } else {
            const auto reason = expected.observe(score, step);
            const auto decision = policy.observe(score, step);
            RC_ASSERT(std::string(to_string(decision.reason)) == reason);
            RC_ASSERT(decision.should_save == (reason == "initial" || reason == "improved"));
            RC_ASSERT(decision.should_stop == expected.stop);
        }
        expected.matches(policy);
    }
    void show(std::ostream& os) const override { os << "observe(" << score << ", " << step << ")"; }
};

struct Baseline : Command {
    double score = *gen_score();
    std::int64_t step = *rc::gen::inRange<std::int64_t>(0, 3);

    void apply(Model& model) const override {
        if (!model.best) {
            model.best = score;
            model.best_step = step;
            model.streak = 0;
            model.stop = false;
            model.external = true;
        }
    }
    void run(const Model& model, CheckpointEvaluationPolicy& policy) const override {
        policy.establish_external_baseline(score, step);
        Model expected = model;
        apply(expected);
        expected.matches(policy);
    }
    void show(std::ostream& os) const override { os << "baseline(" << score << ", " << step << ")"; }
};

struct RoundTrip : Command {
    void run(const Model& model, CheckpointEvaluationPolicy& policy) const override {
        const auto text = policy.state_dict().dump();
        policy = CheckpointEvaluationPolicy::from_state_dict(nlohmann::json::parse(text));
        RC_ASSERT(policy.settings() == model.settings);
        model.matches(policy);
    }
    void show(std::ostream& os) const override { os << "state_dict round trip"; }
};

struct InvalidObserve : Command {
    int kind = *rc::gen::inRange(0, 4);

    void run(const Model& model, CheckpointEvaluationPolicy& policy) const override {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        switch (kind) {
            case 0:
                RC_ASSERT_THROWS_AS(policy.observe(nan, 1), ValueError);
                break;
            case 1:
                RC_ASSERT_THROWS_AS(policy.observe(0.5, -3), ValueError);
                break;
            case 2:
                RC_ASSERT_THROWS_AS(policy.observe(nlohmann::json(0.5), nlohmann::json(2.5)), ValueError);
                break;
            default:
                RC_ASSERT_THROWS_AS(policy.establish_external_baseline(nan), ValueError);
                break;
        }
        model.matches(policy);
    }
    void show(std::ostream& os) const override { os << "invalid input #" << kind; }
};

RC_GTEST_PROP(PolicyModel, AgreesWithNaiveModel, ()) {
    Model model;
    model.settings.patience = *rc::gen::inRange<std::int64_t>(1, 5);
    model.settings.tie_policy =
        *rc::gen::element(TiePolicy::reset, TiePolicy::ignore, TiePolicy::stop, TiePolicy::count);
    model.settings.patience_start_step = *rc::gen::element<std::int64_t>(0, 0, 10, 25);
    CheckpointEvaluationPolicy policy(model.settings);
    rc::state::check(
        model, policy,
        rc::state::gen::execOneOfWithArgs<Observe, Observe, Observe, Baseline, RoundTrip, InvalidObserve>());
}

}  // namespace
}  // namespace ckpt
