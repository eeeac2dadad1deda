// P10 callbacks: every stateful callback, several of one class included, must come back from a
// checkpoint as it was when the checkpoint was written (seeds 000 and 002 lost or mixed up such
// state). Without an EarlyStoppingCallback beside the trigger callback there is no second
// instance to mix up, so the property asks for at least one.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P10Callbacks, StatefulCallbacksRestoreToTheirCheckpointState, ()) {
    check_property(sim::Property::P10, *gen_scenario({.min_early_stopping_callbacks = 1, .stream = 10}));
}

}  // namespace
}  // namespace ckpt::properties
