// P4 link: a reader following final_checkpoint at any crash point outside the save window must
// find a complete checkpoint, and after every resume and at the end it must name the retained
// best. Crashes inside the link update and the sidecar write are what threaten it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P04Link, FinalCheckpointNamesACompleteCheckpoint, ()) {
    check_property(sim::Property::P4, *gen_scenario({.stream = 4}));
}

}  // namespace
}  // namespace ckpt::properties
