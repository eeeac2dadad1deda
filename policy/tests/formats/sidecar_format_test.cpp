// The sidecar reader of policy/formats/sidecar_format.hpp on both FileSystem backends: each
// shape in load's order of rejection, the exact ValueError each raises, the migration of the
// seed's version 1, and a round trip of version 2 through the writer.
#include "policy/formats/sidecar_format.hpp"

#include <string>

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"
#include "policy/tests/support/file_system_backends.hpp"

namespace ckpt {
namespace {

using ckpt::testing::BackendNames;
using ckpt::testing::Backends;
using nlohmann::json;

template <typename Backend>
class SidecarReader : public ::testing::Test {
  protected:
    FileSystem& fs() { return backend_.fs; }
    std::string path() const { return join_path(backend_.root, "checkpoint_eval_state.json"); }

    // The shape of `text` as a sidecar, and the message of the ValueError it raises ("" if none).
    std::pair<SidecarShape, std::string> read(const std::string& text) {
        fs().write_file(path(), text);
        const auto document = read_sidecar(fs(), path());
        try {
            document.throw_if_malformed(path());
        } catch (const ValueError& error) {
            return {document.shape, error.what()};
        }
        return {document.shape, ""};
    }

  private:
    Backend backend_;
};

TYPED_TEST_SUITE(SidecarReader, Backends, BackendNames);

TYPED_TEST(SidecarReader, AMissingFileIsNoRejection) {
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::missing);
    EXPECT_EQ(document.policy_state(), nullptr);
    EXPECT_NO_THROW(document.throw_if_malformed(this->path()));
}

TYPED_TEST(SidecarReader, EachMalformedShapeRaisesTheSeedsMessage) {
    const auto& p = this->path();
    EXPECT_EQ(this->read("{\"version\": 1,"),
              std::pair(SidecarShape::unreadable, "Cannot load checkpoint evaluation metadata from " + p));
    EXPECT_EQ(this->read("[1]"), std::pair(SidecarShape::not_a_mapping,
                                           "Checkpoint evaluation metadata at " + p + " must be a mapping"));
    EXPECT_EQ(this->read("{\"checkpoint_eval_state\": {}}"),
              std::pair(SidecarShape::unsupported_version,
                        "Unsupported checkpoint evaluation metadata version at " + p + ": None"));
    EXPECT_EQ(this->read("{\"version\": \"2\"}"),
              std::pair(SidecarShape::unsupported_version,
                        "Unsupported checkpoint evaluation metadata version at " + p + ": '2'"));
    EXPECT_EQ(this->read("{\"version\": 1, \"checkpoint_eval_state\": []}"),
              std::pair(SidecarShape::no_policy_state,
                        "Checkpoint evaluation metadata at " + p + " has no policy state"));
}

TYPED_TEST(SidecarReader, ThePolicyStateIsAvailableEvenAtAnotherVersion) {
    this->fs().write_file(this->path(), "{\"version\": 9, \"checkpoint_eval_state\": {\"patience\": 4}}");
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::unsupported_version);
    ASSERT_NE(document.policy_state(), nullptr);
    EXPECT_EQ(*document.policy_state(), json({{"patience", 4}}));
}

TYPED_TEST(SidecarReader, WhatTheWriterWritesReadsBackWellFormed) {
    CheckpointEvaluationPolicy policy(PolicySettings{2, TiePolicy::reset, 0});
    policy.observe(0.25, 5);
    this->fs().write_file(this->path(), sidecar_text(policy, 5));
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::well_formed);
    EXPECT_EQ(document.version_on_disk, 2);
    ASSERT_NE(document.policy_state(), nullptr);
    EXPECT_EQ(*document.policy_state(), policy.state_dict());
    EXPECT_EQ(document.last_evaluated_step(), 5);
    EXPECT_EQ(document.payload, json::parse(sidecar_text(policy, 5))) << "a current document is not migrated";
}

TYPED_TEST(SidecarReader, ANullLastEvaluatedStepIsUnknown) {
    const CheckpointEvaluationPolicy policy(PolicySettings{2, TiePolicy::reset, 0});
    this->fs().write_file(this->path(), sidecar_text(policy, std::nullopt));
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::well_formed);
    EXPECT_EQ(document.last_evaluated_step(), std::nullopt);
}

// The seed's file loads, with the step of its last evaluation unknown: nothing is skipped.
TYPED_TEST(SidecarReader, TheSeedsVersionOneMigratesToAnUnknownLastEvaluatedStep) {
    CheckpointEvaluationPolicy policy(PolicySettings{2, TiePolicy::reset, 0});
    policy.observe(0.25, 5);
    for (const auto* version : {"1", "1.0", "true"}) {
        const json seed_file = {{"version", json::parse(version)},
                                {"checkpoint_eval_state", policy.state_dict()}};
        EXPECT_EQ(this->read(seed_file.dump(2) + "\n"), std::pair(SidecarShape::well_formed, std::string()))
            << version;
        const auto document = read_sidecar(this->fs(), this->path());
        EXPECT_EQ(document.version_on_disk, 1);
        EXPECT_EQ(document.last_evaluated_step(), std::nullopt);
        EXPECT_EQ(document.payload, json({{"checkpoint_eval_state", policy.state_dict()},
                                          {"last_evaluated_step", nullptr},
                                          {"migrated_from_version", 1},
                                          {"version", 2}}));
    }
}

// The previous release's writer: the seed's document, which this release reads back migrated.
TYPED_TEST(SidecarReader, TheVersionOneWriterWritesTheSeedsDocument) {
    CheckpointEvaluationPolicy policy(PolicySettings{2, TiePolicy::reset, 0});
    policy.observe(0.25, 5);
    const auto text = sidecar_text(policy, 5, kSeedSidecarVersion);
    EXPECT_EQ(json::parse(text), json({{"checkpoint_eval_state", policy.state_dict()}, {"version", 1}}));
    EXPECT_EQ(text, json::parse(text).dump(2) + "\n") << "json.dump(indent=2, sort_keys=True) + newline";
    this->fs().write_file(this->path(), text);
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::well_formed);
    EXPECT_EQ(document.version_on_disk, 1);
    EXPECT_EQ(document.last_evaluated_step(), std::nullopt) << "a version 1 file names no step";
    EXPECT_THROW(sidecar_text(policy, 5, 3), ValueError);
}

TYPED_TEST(SidecarReader, OtherVersionsAreRejectedWithTheSeedsMessage) {
    const std::string state = "\"checkpoint_eval_state\": {}, \"last_evaluated_step\": null";
    // The version member as written, and its repr in the message ("None" when absent).
    for (const auto& [version, repr] : {std::pair<std::string, std::string>{", \"version\": 3", "3"},
                                        {"", "None"},
                                        {", \"version\": 0", "0"},
                                        {", \"version\": null", "None"},
                                        {", \"version\": 2.5", "2.5"}}) {
        EXPECT_EQ(
            this->read("{" + state + version + "}"),
            std::pair(SidecarShape::unsupported_version,
                      "Unsupported checkpoint evaluation metadata version at " + this->path() + ": " + repr))
            << version;
    }
}

TYPED_TEST(SidecarReader, VersionTwoNeedsALastEvaluatedStepThatIsAStepOrNull) {
    const auto& p = this->path();
    const std::string prefix = "{\"version\": 2, \"checkpoint_eval_state\": {}";
    const auto message = [&](const std::string& value) {
        return "Checkpoint evaluation metadata at " + p + " has an invalid last_evaluated_step: " + value;
    };
    EXPECT_EQ(this->read(prefix + "}"),
              std::pair(SidecarShape::invalid_last_evaluated_step, message("missing")));
    for (const auto* value : {"-1", "2.5", "\"7\"", "true", "[7]", "18446744073709551615"}) {
        EXPECT_EQ(this->read(prefix + ", \"last_evaluated_step\": " + value + "}"),
                  std::pair(SidecarShape::invalid_last_evaluated_step, message(json::parse(value).dump())))
            << value;
    }
    // The policy state is checked first, in the seed's order.
    EXPECT_EQ(this->read("{\"version\": 2, \"last_evaluated_step\": -1}"),
              std::pair(SidecarShape::no_policy_state,
                        "Checkpoint evaluation metadata at " + p + " has no policy state"));
}

}  // namespace
}  // namespace ckpt
