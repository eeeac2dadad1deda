// Tests that the hand-written state_dict text is the seed's bytes (Python's json.dump layout)
// and parses back to the same state for any generated policy. Depends on policy/formats.
#include "policy/formats/state_json_text.hpp"

#include <cmath>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/formats/sidecar_format.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

TEST(StateJsonText, SidecarIsThePythonLayoutByteForByte) {
    CheckpointEvaluationPolicy policy(PolicySettings{3, TiePolicy::reset, 0});
    policy.observe(0.5, 10);
    // What the seed's persist writes for this state: json.dump(payload, indent=2, sort_keys=True)
    // followed by "\n", written out by hand.
    const std::string expected =
        "{\n"
        "  \"checkpoint_eval_state\": {\n"
        "    \"patience\": 3,\n"
        "    \"patience_start_step\": 0,\n"
        "    \"state\": {\n"
        "      \"best_is_external\": false,\n"
        "      \"best_score\": 0.5,\n"
        "      \"best_step\": 10,\n"
        "      \"evaluation_count\": 1,\n"
        "      \"lower_score_streak\": 0,\n"
        "      \"stop_requested\": false\n"
        "    },\n"
        "    \"tie_policy\": \"reset\",\n"
        "    \"version\": 1\n"
        "  },\n"
        "  \"version\": 1\n"
        "}\n";
    EXPECT_EQ(sidecar_text(policy), expected);
}

TEST(StateJsonText, EmptyStateWritesNulls) {
    const CheckpointEvaluationPolicy policy(PolicySettings{2, TiePolicy::count, 5});
    EXPECT_EQ(state_dict_text(policy),
              R"({"patience":2,"patience_start_step":5,"state":{"best_is_external":false,"best_score":null,)"
              R"("best_step":null,"evaluation_count":0,"lower_score_streak":0,"stop_requested":false},)"
              R"("tie_policy":"count","version":1})");
}

RC_GTEST_PROP(StateJsonText, ParsesBackToTheSameStateDict, ()) {
    const auto patience = *rc::gen::inRange<std::int64_t>(1, 10);
    CheckpointEvaluationPolicy policy(PolicySettings{patience, TiePolicy::ignore, 0});
    const auto scores = *rc::gen::container<std::vector<double>>(rc::gen::arbitrary<double>());
    std::int64_t step = 0;
    for (const double score : scores) {
        if (std::isfinite(score) && !policy.state().stop_requested) {
            policy.observe(score, ++step);
        }
    }
    RC_ASSERT(json::parse(state_dict_text(policy)) == policy.state_dict());
    RC_ASSERT(json::parse(sidecar_text(policy))["checkpoint_eval_state"] == policy.state_dict());
    // Doubles round-trip exactly through the text.
    const auto reloaded = CheckpointEvaluationPolicy::from_state_dict(json::parse(state_dict_text(policy)));
    RC_ASSERT(reloaded.state() == policy.state());
}

}  // namespace
}  // namespace ckpt
