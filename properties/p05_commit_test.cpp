// P5 commit: a restored best_step that names a checkpoint which was never completely written
// would make the policy protect (and link to) nothing. Crashes inside the checkpoint write and
// corrupted checkpoints are what threaten it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"

namespace ckpt::properties {
namespace {

RC_GTEST_PROP(P05Commit, RestoredBestNamesACompleteCheckpoint, ()) {
    check_property(sim::Property::P5, *gen_scenario({.stream = 5}));
}

}  // namespace
}  // namespace ckpt::properties
