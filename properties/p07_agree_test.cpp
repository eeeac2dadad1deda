// P7 agree: ranks that disagree about the policy state disagree about whether to save or stop,
// and then wait in different collectives. With one rank it cannot fail, so the property asks
// for at least two.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P07Agree, LiveRanksHoldIdenticalPolicyState, ()) {
    check_property(sim::Property::P7, *gen_scenario({.min_ranks = 2, .stream = 7}));
}

}  // namespace
}  // namespace ckpt::properties
