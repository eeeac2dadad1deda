// The state_dict and sidecar texts of policy/formats/state_json_text.hpp and sidecar_format.hpp:
// the Python json.dump layout byte for byte, and a parse back to the same mapping.
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
    // What json.dump(payload, indent=2, sort_keys=True) followed by "\n" writes for this state
    // and the version 2 payload (the seed's, plus last_evaluated_step), written out by hand.
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
        "  \"last_evaluated_step\": 10,\n"
        "  \"version\": 2\n"
        "}\n";
    EXPECT_EQ(sidecar_text(policy, 10), expected);
}

TEST(StateJsonText, AnUnknownLastEvaluatedStepIsWrittenAsNull) {
    const CheckpointEvaluationPolicy policy(PolicySettings{3, TiePolicy::reset, 0});
    const auto text = sidecar_text(policy, std::nullopt);
    EXPECT_NE(text.find("\n  \"last_evaluated_step\": null,\n"), std::string::npos) << text;
    EXPECT_EQ(json::parse(text).dump(2) + "\n", text);
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
    const auto sidecar = json::parse(sidecar_text(policy, step));
    RC_ASSERT(sidecar["checkpoint_eval_state"] == policy.state_dict());
    RC_ASSERT(sidecar["last_evaluated_step"] == step);
    // Doubles round-trip exactly through the text.
    const auto reloaded = CheckpointEvaluationPolicy::from_state_dict(json::parse(state_dict_text(policy)));
    RC_ASSERT(reloaded.state() == policy.state());
}

}  // namespace
}  // namespace ckpt
