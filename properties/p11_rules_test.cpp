// P11 rules: every decision the real policy makes inside a run, after resumes included, must be
// the one an independent restatement of the seed's rules makes from the same state. Ties are
// where the rules are subtle, so scripted and quantised scores (many ties) are part of the mix.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P11Rules, EveryDecisionFollowsTheSeedsRules, ()) {
    check_property(sim::Property::P11, *gen_scenario({.stream = 11}));
}

}  // namespace
}  // namespace ckpt::properties
