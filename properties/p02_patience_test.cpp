// P2 patience: a resume must neither forget a durably recorded evaluation (patience would be
// reset and a plateau would train on) nor count one twice (the run would stop early). Only
// crashes and resumes can break it; the generator's fault mix supplies them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P02Patience, ResumeRestoresTheLastDurableDecision, ()) {
    check_property(sim::Property::P2, *gen_scenario({.stream = 2}));
}

}  // namespace
}  // namespace ckpt::properties
