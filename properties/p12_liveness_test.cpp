// P12 liveness: a run must reach max_steps or a policy stop, or end because of an injected
// fault that explains it; a job that fails for no reason, or never finishes, is a bug even when
// every safety property holds. A stop must be earned (the history's patience ran out, replayed
// through the independent rules), and a sidecar damaged at rest must fail the resume loudly.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P12Liveness, RunsFinishOrEndForAnExplainedReason, ()) {
    check_property(sim::Property::P12, *gen_scenario({.stream = 12}));
}

}  // namespace
}  // namespace ckpt::properties
