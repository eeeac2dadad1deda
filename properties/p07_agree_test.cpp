// P7 agree: ranks that disagree about the policy state disagree about whether to save or stop,
// and then wait in different collectives. Every rank, rank 0 too, is compared with the ledger's
// decided state, so a world of one is judged as well (its restore against the ledger's).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P07Agree, LiveRanksHoldIdenticalPolicyState, ()) {
    check_property(sim::Property::P7, *gen_scenario({.min_ranks = 2, .stream = 7}));
}

RC_GTEST_PROP(P07Agree, EveryRankHoldsTheLedgersDecidedState, ()) {
    check_property(sim::Property::P7, *gen_scenario({.stream = 77}));
}

}  // namespace
}  // namespace ckpt::properties
