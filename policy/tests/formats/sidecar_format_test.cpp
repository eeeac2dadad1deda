// The sidecar reader of policy/formats/sidecar_format.hpp on both FileSystem backends: each
// shape in load's order of rejection, the exact ValueError each raises, and a round trip
// through the writer.
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
    this->fs().write_file(this->path(), sidecar_text(policy));
    const auto document = read_sidecar(this->fs(), this->path());
    EXPECT_EQ(document.shape, SidecarShape::well_formed);
    ASSERT_NE(document.policy_state(), nullptr);
    EXPECT_EQ(*document.policy_state(), policy.state_dict());
}

}  // namespace
}  // namespace ckpt
