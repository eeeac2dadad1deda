// Under save_on_each_node two nodes write one checkpoint's trainer_state.json, and a power loss
// can keep blocks of each (finding 26). The ledger holds a view to the record when the file is
// one whole write, or both writes interleaved offset by offset into a complete document; any
// other bytes, or a mix that no longer parses, are not the record.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

// The two nodes' texts differ by one byte of length, as is_world_process_zero false/true do, in
// a member before the callbacks' arguments: past it, one text is the other shifted by a byte.
const std::string kRankZero =
    R"({"is_world_process_zero": true, "args": {"gate_steps": [10]}, "global_step": 10})";
const std::string kOtherNode =
    R"({"is_world_process_zero": false, "args": {"gate_steps": [10]}, "global_step": 10})";

// Rank 0's bytes before `at`, the other node's from `at` on: the other node's write torn over
// rank 0's, its blocks from `at` on kept.
std::string interleaved_at(std::size_t at) {
    return kRankZero.substr(0, at) + kOtherNode.substr(at);
}

class NodeWritesInterleaved : public ::testing::Test {
  protected:
    NodeWritesInterleaved() {
        fs_.mkdir("/run");
        fs_.mkdir(kOutputDir);
        fs_.mkdir(checkpoint_path(10));
        record_.step = 10;
        record_.trainer_state_bytes = FileBytes(std::string_view(kRankZero));
        record_.other_node_bytes = FileBytes(std::string_view(kOtherNode));
    }

    bool held_with(const std::string& text) {
        fs_.write_file(path_, text);
        return record_.held_in(fs_, FsView::visible, path_);
    }

    SimFileSystem fs_;
    CheckpointRecord record_;
    const std::string path_ = trainer_state_path(10);
};

TEST_F(NodeWritesInterleaved, EitherWholeWriteIsTheRecord) {
    EXPECT_TRUE(held_with(kRankZero));
    EXPECT_TRUE(held_with(kOtherNode));
    fs_.write_file(path_, kOtherNode);
    EXPECT_TRUE(record_.holds_whole_write_in(fs_, FsView::visible, path_));
}

TEST_F(NodeWritesInterleaved, BlocksOfEachThatStillParseAreTheRecordButNotAWholeWrite) {
    // A byte of "gate_steps" doubled, as seed 57131's torn file has "gaate_steps".
    const std::string garbled = interleaved_at(kRankZero.find("gate_steps") + 2);
    ASSERT_NE(garbled.find("gaate_steps"), std::string::npos);
    fs_.write_file(path_, garbled);
    EXPECT_FALSE(record_.holds_whole_write_in(fs_, FsView::visible, path_));
    EXPECT_TRUE(record_.held_in(fs_, FsView::visible, path_));
}

TEST_F(NodeWritesInterleaved, AMixThatNoLongerParsesIsNotTheRecord) {
    EXPECT_FALSE(held_with(interleaved_at(kRankZero.find("true") + 2)));  // "trlse, "
    EXPECT_FALSE(held_with(interleaved_at(kRankZero.find("10}") + 1)));   // "global_step": 110
}

TEST_F(NodeWritesInterleaved, BytesNeitherNodeWroteAtTheirOffsetAreNotTheRecord) {
    std::string other = kRankZero;
    other[other.find("10]")] = '2';  // gate step 20: a complete document, written by no one
    EXPECT_FALSE(held_with(other));
    EXPECT_FALSE(held_with(kRankZero + " "));  // no write was this long
}

TEST_F(NodeWritesInterleaved, WithoutASecondNodeOnlyTheWholeWriteCounts) {
    record_.other_node_bytes = FileBytes();
    EXPECT_FALSE(held_with(interleaved_at(kRankZero.find("gate_steps") + 2)));
    EXPECT_TRUE(held_with(kRankZero));
}

}  // namespace
}  // namespace ckpt::sim
