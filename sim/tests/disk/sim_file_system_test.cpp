// SimFileSystem's crash model, case by case: what fsync makes durable, what each power-loss mode
// keeps, symlinks, listings, damage at rest and counters. Errors, faults and crashes mid-operation
// are sim_file_system_fault_test.cpp; the POSIX contract is sim_file_system_contract_test.cpp;
// random programs are sim_file_system_property_test.cpp.
#include "sim/disk/sim_file_system.hpp"

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/tests/disk/sim_file_system_fixture.hpp"

namespace ckpt::sim {
namespace {

using testing::atomic_replace;
using ::testing::ElementsAre;
using testing::error_of;
using testing::SimFileSystemTest;
using testing::SimulatedCrash;

TEST_F(SimFileSystemTest, ReadsBackWhatWasWritten) {
    fs.write_file("/out/a.json", "{}");
    EXPECT_EQ(fs.read_file("/out/a.json"), "{}");
    fs.write_file("/out/a.json", "x");  // truncates, as open(path, "w")
    EXPECT_EQ(fs.read_file("out/a.json"), "x");
    EXPECT_TRUE(fs.exists("/out/a.json"));
    EXPECT_FALSE(fs.is_dir("/out/a.json"));
    EXPECT_TRUE(fs.is_dir("/out"));
}

TEST_F(SimFileSystemTest, WriteWithoutFsyncIsLostOnStrictPowerLoss) {
    fs.write_file("/out/state", "old");
    fs.fsync_file("/out/state");
    fs.fsync_dir("/out");
    fs.write_file("/out/state", "new");
    EXPECT_EQ(fs.durable_content("/out/state"), "old");
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.read_file("/out/state"), "old");
}

TEST_F(SimFileSystemTest, NewFileFsyncedWithoutParentFsyncIsLost) {
    fs.write_file("/out/state", "data");
    fs.fsync_file("/out/state");
    EXPECT_FALSE(fs.durably_exists("/out/state"));
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_FALSE(fs.exists("/out/state"));
}

TEST_F(SimFileSystemTest, ParentFsyncWithoutFileFsyncLeavesAnEmptyFile) {
    fs.write_file("/out/state", "data");
    fs.fsync_dir("/out");
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.read_file("/out/state"), "");
}

TEST_F(SimFileSystemTest, AtomicReplaceProtocolSurvivesPowerLoss) {
    atomic_replace(fs, "/out", "sidecar.json", "v1");
    atomic_replace(fs, "/out", "sidecar.json", "v2");
    EXPECT_EQ(fs.pending_operations(), 0U);
    for (const PowerLossMode mode : {PowerLossMode::strict, PowerLossMode::prefix, PowerLossMode::torn}) {
        fs.power_loss(mode, rng);
        EXPECT_EQ(fs.read_file("/out/sidecar.json"), "v2") << to_string(mode);
        EXPECT_THAT(fs.list_dir("/out"), ElementsAre("sidecar.json"));
    }
}

TEST_F(SimFileSystemTest, RenameWithoutParentFsyncRollsBackOnStrictPowerLoss) {
    atomic_replace(fs, "/out", "sidecar.json", "v1");
    fs.write_file("/out/tmp", "v2");
    fs.fsync_file("/out/tmp");
    fs.fsync_dir("/out");
    fs.rename("/out/tmp", "/out/sidecar.json");
    EXPECT_EQ(fs.read_file("/out/sidecar.json"), "v2");
    EXPECT_FALSE(fs.exists("/out/tmp"));
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.read_file("/out/sidecar.json"), "v1");
    EXPECT_EQ(fs.read_file("/out/tmp"), "v2");
}

TEST_F(SimFileSystemTest, CrossDirectoryRenameIsAtomicWhenEitherParentIsSynced) {
    fs.mkdir("/out/staging");
    fs.write_file("/out/staging/f", "data");
    fs.fsync_file("/out/staging/f");
    fs.fsync_dir("/out/staging");
    fs.fsync_dir("/out");
    fs.rename("/out/staging/f", "/out/f");
    fs.fsync_dir("/out");
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.read_file("/out/f"), "data");
    EXPECT_FALSE(fs.exists("/out/staging/f"));
}

TEST_F(SimFileSystemTest, FsyncDirCommitsEarlierChangesOfTheDirectoriesItTouches) {
    // A journal commits in order: making the rename durable makes the earlier link of its
    // source name durable too, or the replay could not find it.
    fs.write_file("/out/a", "A");
    fs.fsync_file("/out/a");
    fs.rename("/out/a", "/out/b");
    fs.fsync_dir("/out");
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_THAT(fs.list_dir("/out"), ElementsAre("b"));
    EXPECT_EQ(fs.read_file("/out/b"), "A");
}

TEST_F(SimFileSystemTest, PrefixPowerLossKeepsAPrefixOfTheOperations) {
    std::set<std::vector<std::string>> outcomes;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        fs.reset();
        fs.mkdir("/out");
        fs.sync_all();
        fs.mkdir("/out/a");
        fs.mkdir("/out/b");
        fs.mkdir("/out/c");
        Rng loss(seed);
        const PowerLossReport report = fs.power_loss(PowerLossMode::prefix, loss);
        EXPECT_EQ(report.pending, 3U);
        const std::vector<std::string> names = fs.list_dir("/out");
        const std::vector<std::string> all{"a", "b", "c"};
        ASSERT_EQ(names.size(), report.kept);
        EXPECT_TRUE(std::equal(names.begin(), names.end(), all.begin())) << "not a prefix";
        outcomes.insert(names);
    }
    EXPECT_EQ(outcomes.size(), 4U);  // nothing, a, ab, abc all occur
}

TEST_F(SimFileSystemTest, TornPowerLossLeavesOldNewOrAMixOfThem) {
    const std::string old_bytes = "0123456789";
    const std::string new_bytes = "abcdefghijklmnop";
    std::set<std::string> outcomes;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        fs.reset();
        fs.mkdir("/out");
        fs.write_file("/out/f", old_bytes);
        fs.sync_all();
        fs.write_file("/out/f", new_bytes);
        Rng loss(seed);
        fs.power_loss(PowerLossMode::torn, loss);
        const std::string got = fs.read_file("/out/f");
        outcomes.insert(got);
        if (got == old_bytes || got == new_bytes) {
            continue;
        }
        ASSERT_LT(got.size(), new_bytes.size() + 1);
        // Whatever landed of the new write is its beginning.
        std::size_t landed = 0;
        while (landed < got.size() && got[landed] == new_bytes[landed]) {
            ++landed;
        }
        for (std::size_t i = landed; i < got.size(); ++i) {
            ASSERT_EQ(got[i], i < old_bytes.size() ? old_bytes[i] : '\0') << got;
        }
    }
    EXPECT_TRUE(outcomes.count(old_bytes));
    EXPECT_TRUE(outcomes.count(new_bytes));
    EXPECT_GT(outcomes.size(), 10U);
}

TEST_F(SimFileSystemTest, ProcessKillKeepsEverything) {
    fs.write_file("/out/f", "data");
    fs.symlink("f", "/out/link");
    const auto before = fs.snapshot();
    const auto pending = fs.pending_operations();
    fs.process_kill();
    EXPECT_EQ(fs.snapshot(), before);
    EXPECT_EQ(fs.pending_operations(), pending);
    EXPECT_EQ(fs.stats().process_kills, 1U);
}

TEST_F(SimFileSystemTest, SymlinksFollowForExistsButNotForLinkQueries) {
    fs.mkdir("/out/checkpoint-3");
    fs.write_file("/out/checkpoint-3/trainer_state.json", "{}");
    fs.symlink("checkpoint-3", "/out/final_checkpoint");
    EXPECT_TRUE(fs.exists("/out/final_checkpoint"));
    EXPECT_TRUE(fs.is_dir("/out/final_checkpoint"));
    EXPECT_TRUE(fs.is_symlink("/out/final_checkpoint"));
    EXPECT_FALSE(fs.is_symlink("/out/checkpoint-3"));
    EXPECT_EQ(fs.readlink("/out/final_checkpoint"), "checkpoint-3");
    EXPECT_EQ(fs.read_file("/out/final_checkpoint/trainer_state.json"), "{}");
    EXPECT_THAT(fs.list_dir("/out/final_checkpoint"), ElementsAre("trainer_state.json"));

    fs.symlink("/out/checkpoint-3", "/out/absolute");
    EXPECT_TRUE(fs.is_dir("/out/absolute"));
    fs.symlink("../out/checkpoint-3/trainer_state.json", "/out/dotdot");
    EXPECT_EQ(fs.read_file("/out/dotdot"), "{}");

    // Rotation deletes the target: the link dangles but is still there.
    fs.remove_tree("/out/checkpoint-3");
    EXPECT_FALSE(fs.exists("/out/final_checkpoint"));
    EXPECT_TRUE(fs.is_symlink("/out/final_checkpoint"));
    EXPECT_EQ(fs.readlink("/out/final_checkpoint"), "checkpoint-3");
    fs.unlink("/out/final_checkpoint");
    EXPECT_FALSE(fs.is_symlink("/out/final_checkpoint"));
}

TEST_F(SimFileSystemTest, SymlinkCyclesEndInEloop) {
    fs.symlink("b", "/out/a");
    fs.symlink("a", "/out/b");
    EXPECT_FALSE(fs.exists("/out/a"));
    EXPECT_TRUE(fs.is_symlink("/out/a"));
    EXPECT_EQ(error_of([&] { fs.read_file("/out/a"); }), ELOOP);
}

TEST_F(SimFileSystemTest, RemoveTreeRemovesLinksNotTheirTargets) {
    fs.mkdir("/out/keep");
    fs.write_file("/out/keep/f", "x");
    fs.mkdir("/out/doomed");
    fs.symlink("/out/keep", "/out/doomed/link");
    fs.remove_tree("/out/doomed");
    EXPECT_FALSE(fs.exists("/out/doomed"));
    EXPECT_EQ(fs.read_file("/out/keep/f"), "x");
    fs.symlink("keep", "/out/link");
    EXPECT_EQ(error_of([&] { fs.remove_tree("/out/link"); }), ENOTDIR);
}

TEST_F(SimFileSystemTest, SymlinkIsDurableOnlyAfterParentFsync) {
    fs.mkdir("/out/checkpoint-3");
    fs.fsync_dir("/out");
    fs.symlink("checkpoint-3", "/out/final_checkpoint");
    EXPECT_FALSE(fs.link_target_in(FsView::durable, "/out/final_checkpoint").has_value());
    fs.fsync_dir("/out");
    EXPECT_EQ(fs.link_target_in(FsView::durable, "/out/final_checkpoint"), "checkpoint-3");
}

TEST_F(SimFileSystemTest, ListDirIsInAscendingByteOrder) {
    for (const char* name : {"b", "a", "B", "checkpoint-10", "checkpoint-9", "\xc3\xa9"}) {
        fs.write_file(std::string("/out/") + name, "");
    }
    EXPECT_THAT(fs.list_dir("/out"), ElementsAre("B", "a", "b", "checkpoint-10", "checkpoint-9", "\xc3\xa9"));
}

TEST_F(SimFileSystemTest, CorruptionAtRestHitsBothViews) {
    atomic_replace(fs, "/out", "sidecar.json", R"({"best": 1.0})");
    const std::string description = fs.corrupt_at_rest("/out/sidecar.json", rng);
    EXPECT_THAT(description, ::testing::HasSubstr("/out/sidecar.json"));
    const std::string now = fs.read_file("/out/sidecar.json");
    EXPECT_NE(now, R"({"best": 1.0})");
    EXPECT_EQ(fs.durable_content("/out/sidecar.json"), now);
    EXPECT_EQ(fs.stats().corruptions, 1U);
    EXPECT_EQ(error_of([&] { fs.corrupt_at_rest("/out/missing", rng); }), ENOENT);
}

TEST_F(SimFileSystemTest, CountsOperations) {
    atomic_replace(fs, "/out", "s", "v");
    fs.exists("/out/s");
    const FsStats& stats = fs.stats();
    EXPECT_EQ(stats.count(FsOp::write_file), 1U);
    EXPECT_EQ(stats.count(FsOp::rename), 1U);
    EXPECT_EQ(stats.count(FsOp::stat), 1U);
    EXPECT_EQ(stats.fsyncs(), 2U);
    EXPECT_EQ(stats.bytes_written, 1U);
}

TEST_F(SimFileSystemTest, ResetEmptiesEverything) {
    fs.write_file("/out/f", "x");
    fs.set_observer([](const FsOperation&) { throw SimulatedCrash(); });
    fs.reset();
    EXPECT_TRUE(fs.snapshot().empty());
    EXPECT_EQ(fs.pending_operations(), 0U);
    EXPECT_EQ(fs.stats().count(FsOp::write_file), 0U);
    EXPECT_NO_THROW(fs.mkdir("/out"));
}

TEST_F(SimFileSystemTest, SnapshotListsDepthFirstInNameOrder) {
    fs.mkdir("/out/b");
    fs.write_file("/out/b/x", "1");
    fs.write_file("/out/a", "2");
    fs.symlink("b", "/out/c");
    EXPECT_THAT(fs.list_recursive(), ElementsAre("/out", "/out/a", "/out/b", "/out/b/x", "/out/c"));
    EXPECT_THAT(fs.list_recursive(FsView::durable), ElementsAre("/out"));
}

}  // namespace
}  // namespace ckpt::sim
