// The ledger retires a checkpoint's record only when no view of the disk can show the checkpoint
// again (issue 14): not while the durable view or a published link still names it, and a
// retired checkpoint keeps the score a link published to it is judged by.
#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/ledger_writer.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

class LedgerRetirement : public ::testing::Test {
  protected:
    LedgerRetirement() {
        fs_.mkdir("/run");
        fs_.mkdir(kOutputDir);
        fs_.sync_all();
    }

    // checkpoint-`step` written with its trainer_state.json fsynced, then reported as the trainer
    // reports it. Its entry in the output directory stays un-synced, so an earlier removal there
    // stays un-synced too.
    void write_checkpoint(std::int64_t step, double score) {
        const auto directory = checkpoint_path(step);
        const auto file = join_path(directory, kTrainerStateName);
        const FileBytes bytes(R"({"global_step": )" + std::to_string(step) + "}");
        fs_.mkdir(directory);
        fs_.write_bytes(file, bytes);
        fs_.fsync_file(file);
        fs_.fsync_dir(directory);
        writer_.on(TrainerStateWritten{step, score, state_, callbacks_, bytes});
    }

    void remove_checkpoint(std::int64_t step, bool durably) {
        fs_.remove_tree(checkpoint_path(step));
        if (durably) {
            fs_.fsync_dir(kOutputDir);
        }
    }

    SimFileSystem fs_;
    Ledger ledger_;
    PolicySettings settings_;
    LedgerWriter writer_{settings_, fs_, ledger_};
    CheckpointEvaluationState state_;
    std::shared_ptr<const nlohmann::json> callbacks_ =
        std::make_shared<const nlohmann::json>(nlohmann::json::object());
};

TEST_F(LedgerRetirement, ARemovedCheckpointIsRetiredOnceNoPowerLossCanBringItBack) {
    write_checkpoint(10, 0.5);
    write_checkpoint(20, 0.6);
    fs_.fsync_dir(kOutputDir);
    remove_checkpoint(10, false);
    write_checkpoint(30, 0.7);
    // Still in the durable view: a power loss now shows checkpoint-10 with these bytes.
    ASSERT_TRUE(fs_.exists_in(FsView::durable, checkpoint_path(10)));
    EXPECT_TRUE(ledger_.checkpoints.contains(10));
    fs_.fsync_dir(kOutputDir);
    write_checkpoint(40, 0.8);
    EXPECT_FALSE(ledger_.checkpoints.contains(10));
    EXPECT_EQ(written_score(ledger_, 10), 0.5);
    EXPECT_EQ(written_score(ledger_, 20), 0.6);
    EXPECT_EQ(written_score(ledger_, 15), std::nullopt);
    EXPECT_EQ(ledger_.retirements, 1U);
}

TEST_F(LedgerRetirement, ACheckpointAPendingLinkCanBringBackKeepsItsRecord) {
    write_checkpoint(10, 0.5);  // never in the durable view: its link to the output directory is pending
    remove_checkpoint(10, false);
    write_checkpoint(20, 0.6);
    ASSERT_FALSE(fs_.exists_in(FsView::durable, checkpoint_path(10)));
    EXPECT_TRUE(ledger_.checkpoints.contains(10));
}

TEST_F(LedgerRetirement, TheLinkedCheckpointKeepsItsRecord) {
    write_checkpoint(10, 0.5);
    ledger_.link_step = 10;
    remove_checkpoint(10, true);
    write_checkpoint(20, 0.6);
    EXPECT_TRUE(ledger_.checkpoints.contains(10));
}

TEST_F(LedgerRetirement, ACheckpointWrittenAgainGetsANewRecordAndLosesItsSummary) {
    write_checkpoint(10, 0.5);
    remove_checkpoint(10, true);
    write_checkpoint(20, 0.6);
    ASSERT_FALSE(ledger_.checkpoints.contains(10));
    write_checkpoint(10, 0.9);  // a resumed branch writes checkpoint-10 again
    ASSERT_TRUE(ledger_.checkpoints.contains(10));
    EXPECT_EQ(written_score(ledger_, 10), 0.9);
    EXPECT_TRUE(ledger_.retired_scores.empty());
}

}  // namespace
}  // namespace ckpt::sim
