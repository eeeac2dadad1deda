// The trainer_state.json lookup of policy/formats/saved_trigger_callback.hpp: one state, a list
// of them, and every way the path can be absent.
#include "policy/formats/saved_trigger_callback.hpp"

#include <gtest/gtest.h>

namespace ckpt {
namespace {

using nlohmann::json;

const json kSaved = {{"args", {{"patience", 2}}},
                     {"attributes", {{"checkpoint_eval_state", {{"patience", 2}}}}}};

TEST(SavedTriggerCallback, FindsASingleState) {
    const auto found =
        find_saved_trigger_callback({{"stateful_callbacks", {{kTriggerCallbackClass, kSaved}}}});
    ASSERT_TRUE(found);
    EXPECT_EQ(found->state, kSaved);
    EXPECT_EQ(found->copies, 1U);
    EXPECT_EQ(saved_policy_state(found->state), json({{"patience", 2}}));
}

TEST(SavedTriggerCallback, TheFirstOfSeveralSpeaks) {
    const auto found = find_saved_trigger_callback(
        {{"stateful_callbacks", {{kTriggerCallbackClass, json::array({kSaved, json::object()})}}}});
    ASSERT_TRUE(found);
    EXPECT_EQ(found->state, kSaved);
    EXPECT_EQ(found->copies, 2U);
    const auto empty =
        find_saved_trigger_callback({{"stateful_callbacks", {{kTriggerCallbackClass, json::array()}}}});
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->state.is_null());
    EXPECT_EQ(empty->copies, 0U);
}

TEST(SavedTriggerCallback, NothingWithoutTheWholePath) {
    EXPECT_FALSE(find_saved_trigger_callback(json::array()));
    EXPECT_FALSE(find_saved_trigger_callback({{"global_step", 3}}));
    EXPECT_FALSE(find_saved_trigger_callback({{"stateful_callbacks", json::array()}}));
    EXPECT_FALSE(find_saved_trigger_callback({{"stateful_callbacks", {{"TrainerControl", json::object()}}}}));
    EXPECT_TRUE(saved_policy_state(json::array()).is_null());
    EXPECT_TRUE(saved_policy_state({{"attributes", json::array()}}).is_null());
    EXPECT_TRUE(saved_policy_state({{"attributes", json::object()}}).is_null());
}

}  // namespace
}  // namespace ckpt
