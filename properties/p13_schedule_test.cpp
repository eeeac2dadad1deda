// P13 schedule: the trainer's save schedule is the policy's clock. Every save event (the
// save_steps grid, max_steps, an epoch end, a gate or regular step) must become exactly one
// evaluation, and one may be dropped only for a step the restored history already counted or
// while a stop is in force; the checker derives the events from the scenario, not the callback.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/base/mutants.hpp"
#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P13Schedule, EverySaveEventBecomesOneEvaluation, ()) {
    check_property(sim::Property::P13, *gen_scenario({.stream = 13}));
}

// Gate steps off the save_steps grid, scored so patience never runs out.
sim::Scenario gated_scenario() {
    sim::Scenario s;
    s.seed = 13;
    s.job.ranks = 1;
    s.trainer.max_steps = 100;
    s.trainer.steps_per_epoch = 100;
    s.trainer.save_strategy = sim::SaveStrategy::steps;
    s.trainer.save_steps = 40;
    s.callbacks.gate_steps = {10, 25};
    s.callbacks.policy.patience = 50;
    s.trainer.resume_rule = sim::ResumeRule::fixed;
    s.callbacks.early_stopping_callbacks = 0;
    s.score.noisy_replay = false;
    s.score.external_baseline = false;
    s.score.kind = sim::ScoreKind::scripted;
    s.score.script = {0.5};
    return s;
}

TEST(P13Schedule, GateStepsAreEvaluatedOnTheRealCode) {
    const auto result = sim::run_scenario(gated_scenario());
    EXPECT_TRUE(result.held(sim::Property::P13));
}

TEST(P13Schedule, ACallbackThatIgnoresGateStepsIsCaught) {
    const mutants::MutantScope scope(mutants::Mutant::gate_steps_ignored);
    const auto result = sim::run_scenario(gated_scenario());
    EXPECT_FALSE(result.held(sim::Property::P13));
}

}  // namespace
}  // namespace ckpt::properties
