// The resume rules of policy/output_dir/resume_point.hpp on both FileSystem backends: which
// checkpoint each rule picks, what the fixed rule removes and in which order it reports it.
#include "policy/output_dir/resume_point.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/base/mutants.hpp"
#include "policy/tests/support/file_system_backends.hpp"
#include "policy/tests/support/trigger_callback_test_support.hpp"

namespace ckpt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using ckpt::testing::BackendNames;
using ckpt::testing::Backends;

// Records the events in order; refuses the pick when told to.
struct RecordingObserver final : ResumeObserver {
    bool accept = true;
    std::vector<std::string> events;

    bool on_chosen(const CheckpointEntry& source) override {
        events.push_back("chosen " + source.name);
        return accept;
    }
    void on_removed(const CheckpointEntry& removed) override { events.push_back("removed " + removed.name); }
};

template <typename Backend>
class ResumePoint : public ::testing::Test {
  protected:
    FileSystem& fs() { return backend_.fs; }
    const std::string& dir() const { return backend_.root; }

    // checkpoint-10 and checkpoint-20 complete; checkpoint-30 and checkpoint-40 lack trainer_state.json.
    void write_two_complete_and_two_torn() {
        testing::write_checkpoint(fs(), dir(), 10);
        testing::write_checkpoint(fs(), dir(), 20);
        make_dirs(fs(), join_path(dir(), "checkpoint-30"));
        make_dirs(fs(), join_path(dir(), "checkpoint-40"));
    }
    std::vector<std::string> remaining() {
        std::vector<std::string> names;
        for (const auto& entry : list_checkpoints(fs(), dir())) {
            names.push_back(entry.name);
        }
        return names;
    }

  private:
    Backend backend_;
};

TYPED_TEST_SUITE(ResumePoint, Backends, BackendNames);

TYPED_TEST(ResumePoint, TransformersRulePicksTheNewestDirectoryAndRemovesNothing) {
    this->write_two_complete_and_two_torn();
    RecordingObserver observer;
    const auto source =
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_directory, observer);
    ASSERT_TRUE(source);
    EXPECT_EQ(source->name, "checkpoint-40");
    EXPECT_THAT(observer.events, ElementsAre("chosen checkpoint-40"));
    EXPECT_THAT(this->remaining(),
                ElementsAre("checkpoint-10", "checkpoint-20", "checkpoint-30", "checkpoint-40"));
}

TYPED_TEST(ResumePoint, FixedRulePicksTheNewestCompleteThenRemovesTheNewerOnesInStepOrder) {
    this->write_two_complete_and_two_torn();
    RecordingObserver observer;
    const auto source =
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete, observer);
    ASSERT_TRUE(source);
    EXPECT_EQ(source->step, 20);
    EXPECT_THAT(observer.events,
                ElementsAre("chosen checkpoint-20", "removed checkpoint-30", "removed checkpoint-40"));
    EXPECT_THAT(this->remaining(), ElementsAre("checkpoint-10", "checkpoint-20"));
}

TYPED_TEST(ResumePoint, FixedRuleWithNothingCompleteRemovesEveryCheckpointAndStartsFromScratch) {
    make_dirs(this->fs(), join_path(this->dir(), "checkpoint-5"));
    RecordingObserver observer;
    EXPECT_FALSE(
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete, observer));
    EXPECT_THAT(observer.events, ElementsAre("removed checkpoint-5"));
    EXPECT_THAT(this->remaining(), IsEmpty());
}

TYPED_TEST(ResumePoint, AnAbandonedPickRemovesNothing) {
    this->write_two_complete_and_two_torn();
    RecordingObserver observer;
    observer.accept = false;
    EXPECT_FALSE(
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete, observer));
    EXPECT_THAT(observer.events, ElementsAre("chosen checkpoint-20"));
    EXPECT_EQ(this->remaining().size(), 4U);
}

TYPED_TEST(ResumePoint, TheTrustingMutantMakesTheFixedRuleTransformers) {
    this->write_two_complete_and_two_torn();
    const mutants::MutantScope scope(mutants::Mutant::resume_trusts_incomplete);
    RecordingObserver observer;
    const auto source =
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete, observer);
    ASSERT_TRUE(source);
    EXPECT_EQ(source->name, "checkpoint-40");
    EXPECT_THAT(observer.events, ElementsAre("chosen checkpoint-40"));
}

TYPED_TEST(ResumePoint, PickAloneNeitherRemovesNorReports) {
    this->write_two_complete_and_two_torn();
    EXPECT_EQ(pick_resume_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete)->step, 20);
    EXPECT_EQ(pick_resume_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_directory)->step, 40);
    EXPECT_EQ(this->remaining().size(), 4U);
}

// Rotation's rmtree cut short by a power loss can keep trainer_state.json and lose the weights:
// Transformers' _load_from_checkpoint then raises, so the fixed rule resumes from an older one.
TYPED_TEST(ResumePoint, TheFixedRuleSkipsAndRemovesACompleteCheckpointWithoutWeights) {
    this->write_two_complete_and_two_torn();
    this->fs().unlink(join_path(join_path(this->dir(), "checkpoint-20"), "model.safetensors"));
    RecordingObserver observer;
    const auto source =
        resume_from_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete, observer);
    ASSERT_TRUE(source);
    EXPECT_EQ(source->name, "checkpoint-10");
    EXPECT_THAT(this->remaining(), ElementsAre("checkpoint-10"));
    {
        const mutants::MutantScope scope(mutants::Mutant::resume_ignores_weights);
        testing::write_checkpoint(this->fs(), this->dir(), 20);
        this->fs().unlink(join_path(join_path(this->dir(), "checkpoint-20"), "model.safetensors"));
        EXPECT_EQ(pick_resume_checkpoint(this->fs(), this->dir(), ResumeSourceRule::newest_complete)->step,
                  20);
    }
}

}  // namespace
}  // namespace ckpt
