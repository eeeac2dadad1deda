// P2 patience: a resume must restore the full state of the newest decision recorded on the
// history it continues (the ledger's decision tree: an abandoned branch does not count), both
// before and after the external baseline, and must never count a step that history already
// counted (the run would stop early). Only crashes and resumes can break it; the generator's
// fault mix supplies them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P02Patience, ResumeRestoresTheNewestDecisionOnItsHistory, ()) {
    check_property(sim::Property::P2, *gen_scenario({.stream = 2}));
}

}  // namespace
}  // namespace ckpt::properties
