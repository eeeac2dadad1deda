// The simulated disk forgets what no view can show again (issue 14): entry_may_exist, which the
// ledger trusts before it retires a checkpoint's record, and the freed inodes of removed files,
// whose reuse must not let an old file's bytes or entries leak into a new one.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/rng.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {
namespace {

// out/checkpoint-10/state.json, written and made durable, file and directories alike.
void write_durable_checkpoint(SimFileSystem& fs) {
    fs.mkdir("out");
    fs.mkdir("out/checkpoint-10");
    fs.write_file("out/checkpoint-10/state.json", "ten");
    fs.sync_all();
}

TEST(SimFileSystemRelease, ARemovedEntryMayExistUntilNoPowerLossCanBringItBack) {
    SimFileSystem fs;
    write_durable_checkpoint(fs);
    EXPECT_TRUE(fs.entry_may_exist("checkpoint-10"));
    fs.remove_tree("out/checkpoint-10");
    // Gone from the visible view, still in the durable one: a power loss brings it back.
    EXPECT_FALSE(fs.exists_in(FsView::visible, "out/checkpoint-10"));
    EXPECT_TRUE(fs.entry_may_exist("checkpoint-10"));
    fs.fsync_dir("out");
    EXPECT_FALSE(fs.entry_may_exist("checkpoint-10"));
    EXPECT_FALSE(fs.entry_may_exist("state.json"));
    EXPECT_TRUE(fs.entry_may_exist("out"));
}

TEST(SimFileSystemRelease, APendingLinkMayMakeTheNameThatNoViewShows) {
    SimFileSystem fs;
    fs.mkdir("out");
    fs.sync_all();
    // Made and removed, never synced: neither view holds it, but a power loss that keeps the
    // mkdir and not the removal shows it.
    fs.mkdir("out/checkpoint-20");
    fs.remove_tree("out/checkpoint-20");
    EXPECT_FALSE(fs.exists_in(FsView::visible, "out/checkpoint-20"));
    EXPECT_FALSE(fs.exists_in(FsView::durable, "out/checkpoint-20"));
    EXPECT_TRUE(fs.entry_may_exist("checkpoint-20"));
    fs.fsync_dir("out");
    EXPECT_FALSE(fs.entry_may_exist("checkpoint-20"));
}

TEST(SimFileSystemRelease, AReusedInodeHoldsNothingOfTheRemovedFile) {
    SimFileSystem fs;
    write_durable_checkpoint(fs);
    fs.remove_tree("out/checkpoint-10");
    fs.fsync_dir("out");  // the removed directory and file are freed here
    fs.mkdir("out/checkpoint-30");
    fs.write_file("out/checkpoint-30/other.json", "");
    EXPECT_EQ(fs.content_in(FsView::visible, "out/checkpoint-30/other.json"), "");
    EXPECT_FALSE(fs.exists_in(FsView::visible, "out/checkpoint-30/state.json"));
    fs.fsync_dir("out");
    fs.fsync_dir("out/checkpoint-30");
    Rng rng(7);
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.list_recursive(FsView::visible),
              (std::vector<std::string>{"/out", "/out/checkpoint-30", "/out/checkpoint-30/other.json"}));
    EXPECT_EQ(fs.content_in(FsView::visible, "out/checkpoint-30/other.json"), "");
}

}  // namespace
}  // namespace ckpt::sim
