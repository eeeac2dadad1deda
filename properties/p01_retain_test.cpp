// P1 retain: the best-only promise itself. If final_checkpoint ever moved to a worse (or an equal)
// checkpoint, or ended anywhere but on the best durably recorded score, a user shipping
// final_checkpoint would ship the wrong model. Any scenario can break it, so every kind is drawn.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P01Retain, FinalCheckpointNeverMovesToALowerScore, ()) {
    check_property(sim::Property::P1, *gen_scenario({.stream = 1}));
}

}  // namespace
}  // namespace ckpt::properties
