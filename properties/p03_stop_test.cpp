// P3 stop: once patience has run out, every further optimizer step or evaluation is compute
// the user asked not to spend. Patience is drawn small (2 to 6) so most runs do stop, and
// crashes around the stop test that a resumed job honours it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P03Stop, NoStepOrEvaluationAfterAStop, ()) {
    check_property(sim::Property::P3, *gen_scenario({.stream = 3}));
}

}  // namespace
}  // namespace ckpt::properties
