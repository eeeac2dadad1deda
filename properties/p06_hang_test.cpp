// P6 hang: a rank-zero failure that only rank 0 sees leaves the other ranks waiting in a
// collective forever, burning a whole allocation. With one rank there is nobody to strand, so
// the property asks for at least two.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P06Hang, RankZeroFailuresEndEveryRankAlike, ()) {
    check_property(sim::Property::P6, *gen_scenario({.min_ranks = 2, .stream = 6}));
}

}  // namespace
}  // namespace ckpt::properties
