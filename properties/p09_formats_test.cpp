// P9 formats: the sidecar and trainer_state.json are shared with the seed's Python code, in both
// directions, and a resumed run is only as right as what it reads back. So the state must
// round-trip exactly (a score that comes back one ulp off can turn a tie into an improvement),
// a file the seed wrote must load, and a file we write must be the seed's own layout: its
// version 1 document plus last_evaluated_step, at version 2 (policy/formats/sidecar_format.hpp).
#include <bit>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/collective.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "properties/support/policy_state_generators.hpp"
#include "properties/support/property_check.hpp"
#include "properties/support/scenario_generators.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::properties {
namespace {

using nlohmann::json;

// Exact, not ==: 0.0 == -0.0, and a format must not turn one into the other.
bool same_bits(const std::optional<double>& a, const std::optional<double>& b) {
    return a.has_value() == b.has_value() &&
           (!a || std::bit_cast<std::uint64_t>(*a) == std::bit_cast<std::uint64_t>(*b));
}

void assert_same_policy(const CheckpointEvaluationPolicy& restored,
                        const CheckpointEvaluationPolicy& original) {
    RC_ASSERT(restored.settings() == original.settings());
    RC_ASSERT(restored.state() == original.state());
    RC_ASSERT(same_bits(restored.state().best_score, original.state().best_score));
    RC_ASSERT(restored.state_dict() == original.state_dict());
}

RC_GTEST_PROP(P09Formats, SidecarOnDiskRoundTripsInTheSimulator, ()) {
    check_property(sim::Property::P9, *gen_scenario({.stream = 9}));
}

// The sidecar's checkpoint_eval_state and the callback's attributes both hold state_dict().
RC_GTEST_PROP(P09Formats, PolicyStateRoundTripsThroughJsonText, ()) {
    const auto policy = *gen_policy();
    const auto text = policy.state_dict().dump(2);
    assert_same_policy(CheckpointEvaluationPolicy::from_state_dict(json::parse(text)), policy);
}

// trainer_state.json's stateful_callbacks entry: TriggerCallback::state(), rebuilt by from_state.
RC_GTEST_PROP(P09Formats, TriggerCallbackStateRoundTripsThroughJsonText, ()) {
    const auto policy = *gen_policy();
    sim::SimFileSystem fs;
    SingleProcessCollective collective;
    TriggerCallbackConfig config;
    config.policy = policy.settings();
    config.output_dir = "/out";
    TriggerCallback callback(config, fs, collective);
    callback.policy() = policy;
    const auto text = callback.state().dump(2);
    const auto restored = TriggerCallback::from_state(json::parse(text), fs, collective);
    assert_same_policy(restored.policy(), policy);
    RC_ASSERT(restored.state() == callback.state());
}

// Written by hand as the seed's persist() writes it: json.dump(payload, indent=2, sort_keys=True)
// followed by "\n". The scores are ones whose Python repr has a fraction, an exponent, or neither.
constexpr const char* kSeedSidecar = R"({
  "checkpoint_eval_state": {
    "patience": 3,
    "patience_start_step": 20,
    "state": {
      "best_is_external": false,
      "best_score": 0.8125,
      "best_step": 40,
      "evaluation_count": 5,
      "lower_score_streak": 2,
      "stop_requested": false
    },
    "tie_policy": "count",
    "version": 1
  },
  "version": 1
}
)";

CheckpointEvaluationState seed_sidecar_state() {
    CheckpointEvaluationState state;
    state.best_score = 0.8125;
    state.best_step = 40;
    state.lower_score_streak = 2;
    state.evaluation_count = 5;
    return state;
}

TriggerCallbackConfig seed_sidecar_config() {
    TriggerCallbackConfig config;
    config.policy.patience = 3;
    config.policy.tie_policy = TiePolicy::count;
    config.policy.patience_start_step = 20;
    config.output_dir = "/out";
    return config;
}

// The sidecar is only trusted when the checkpoint it names is complete (P5), so the file system
// holds checkpoint-40 as Transformers leaves it: trainer_state.json with its global_step.
void write_complete_checkpoint(sim::SimFileSystem& fs, std::int64_t step) {
    const auto dir = join_path("/out", checkpoint_dir_name(step));
    make_dirs(fs, dir);
    fs.write_file(join_path(dir, kTrainerStateName), json{{"global_step", step}}.dump(2));
}

TEST(P09Formats, SidecarWrittenByTheSeedLoads) {
    sim::SimFileSystem fs;
    SingleProcessCollective collective;
    write_complete_checkpoint(fs, 40);
    fs.write_file(join_path("/out", kSidecarName), kSeedSidecar);

    TriggerCallback callback(seed_sidecar_config(), fs, collective);
    ASSERT_TRUE(callback.load(/*is_world_process_zero=*/true));
    EXPECT_EQ(callback.policy().state(), seed_sidecar_state());
}

TEST(P09Formats, SidecarWeWriteIsTheSeedsFormatAndLoadsBack) {
    sim::SimFileSystem fs;
    SingleProcessCollective collective;
    write_complete_checkpoint(fs, 40);
    TriggerCallback writer(seed_sidecar_config(), fs, collective);
    writer.policy() = CheckpointEvaluationPolicy(seed_sidecar_config().policy, seed_sidecar_state());
    const auto path = writer.persist(/*is_world_process_zero=*/true);
    ASSERT_TRUE(path.has_value());
    // Byte for byte what the seed would have written for the same state, up to the version 2
    // field before the version; the writer never counted a step, so it is unknown.
    std::string expected = kSeedSidecar;
    const std::string seed_tail = "  \"version\": 1\n}\n";
    ASSERT_EQ(expected.substr(expected.size() - seed_tail.size()), seed_tail);
    expected.replace(expected.size() - seed_tail.size(), seed_tail.size(),
                     "  \"last_evaluated_step\": null,\n  \"version\": 2\n}\n");
    EXPECT_EQ(fs.read_file(*path), expected);

    TriggerCallback reader(seed_sidecar_config(), fs, collective);
    ASSERT_TRUE(reader.load(/*is_world_process_zero=*/true));
    EXPECT_EQ(reader.policy().state(), seed_sidecar_state());
}

}  // namespace
}  // namespace ckpt::properties
