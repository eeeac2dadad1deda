// Triage classes: numbers blanked, one count per scenario and class, most frequent first.
#include "sim/cli/violation_classes.hpp"

#include <gtest/gtest.h>

namespace ckpt::cli {
namespace {

TEST(ViolationSignature, BlanksEveryNumberAndNothingElse) {
    EXPECT_EQ(
        violation_signature("the lower decision at step 25 is not durable: {best_score=0.35, streak=-1}"),
        "the lower decision at step N is not durable: {best_score=N, streak=N}");
    EXPECT_EQ(violation_signature("checkpoint-194 scored 1e-05 and 2.5e+16"), "checkpoint-N scored N and N");
    EXPECT_EQ(violation_signature("P10 rank 0"), "PN rank N");
    EXPECT_EQ(violation_signature("no numbers"), "no numbers");
}

TEST(ViolationClasses, CountScenariosNotOccurrencesMostFirst) {
    using sim::Property;
    std::vector<sim::FoundViolation> found(3);
    found[0].seed = 2;
    found[0].violations = {
        {Property::P2, "step 10 lost"}, {Property::P2, "step 20 lost"}, {Property::P1, "moved"}};
    found[1].seed = 5;
    found[1].violations = {{Property::P2, "step 30 lost"}};
    found[2].seed = 9;
    found[2].violations = {{Property::P1, "moved"}, {Property::P3, "late"}};
    const auto classes = violation_classes(found);
    ASSERT_EQ(classes.size(), 3U);
    EXPECT_EQ(classes[0].property, Property::P1);  // two scenarios; ties keep property order
    EXPECT_EQ(classes[0].scenarios, 2U);
    EXPECT_EQ(classes[0].first_seed, 2U);
    EXPECT_EQ(classes[1].property, Property::P2);
    EXPECT_EQ(classes[1].signature, "step N lost");
    EXPECT_EQ(classes[1].scenarios, 2U);  // seed 2 counts once for its two
    EXPECT_EQ(classes[2].property, Property::P3);
    EXPECT_EQ(classes[2].first_seed, 9U);
}

}  // namespace
}  // namespace ckpt::cli
