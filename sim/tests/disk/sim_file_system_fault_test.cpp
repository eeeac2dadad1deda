// SimFileSystem's failures, case by case: real errno values, injected faults (ENOSPC, EIO, short
// writes) that change nothing or exactly what POSIX would, and crashes thrown from the observer
// that leave the state as before the call, including midway through remove_tree.
#include <cerrno>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/disk/sim_file_system.hpp"
#include "sim/tests/disk/sim_file_system_fixture.hpp"

namespace ckpt::sim {
namespace {

using testing::atomic_replace;
using ::testing::ElementsAre;
using testing::error_of;
using testing::fault_on;
using testing::SimFileSystemTest;
using testing::SimulatedCrash;

TEST_F(SimFileSystemTest, ReportsRealErrnoValues) {
    fs.write_file("/out/file", "x");
    fs.mkdir("/out/dir");
    fs.write_file("/out/dir/inner", "y");
    fs.mkdir("/out/empty");
    EXPECT_EQ(error_of([&] { fs.read_file("/out/missing"); }), ENOENT);
    EXPECT_EQ(error_of([&] { fs.read_file("/out/dir"); }), EISDIR);
    EXPECT_EQ(error_of([&] { fs.read_file("/out/file/x"); }), ENOTDIR);
    EXPECT_EQ(error_of([&] { fs.write_file("/nowhere/x", "x"); }), ENOENT);
    EXPECT_EQ(error_of([&] { fs.write_file("/out/dir", "x"); }), EISDIR);
    EXPECT_EQ(error_of([&] { fs.mkdir("/out/file"); }), EEXIST);
    EXPECT_EQ(error_of([&] { fs.mkdir("/out/dir"); }), 0);
    EXPECT_EQ(error_of([&] { fs.unlink("/out/dir"); }), EISDIR);
    EXPECT_EQ(error_of([&] { fs.unlink("/out/missing"); }), ENOENT);
    EXPECT_EQ(error_of([&] { fs.rename("/out/missing", "/out/x"); }), ENOENT);
    EXPECT_EQ(error_of([&] { fs.rename("/out/empty", "/out/dir"); }), ENOTEMPTY);
    EXPECT_EQ(error_of([&] { fs.rename("/out/empty", "/out/file"); }), ENOTDIR);
    EXPECT_EQ(error_of([&] { fs.rename("/out/file", "/out/dir"); }), EISDIR);
    EXPECT_EQ(error_of([&] { fs.rename("/out/dir", "/out/dir/sub"); }), EINVAL);
    EXPECT_EQ(error_of([&] { fs.symlink("x", "/out/file"); }), EEXIST);
    EXPECT_EQ(error_of([&] { fs.readlink("/out/file"); }), EINVAL);
    EXPECT_EQ(error_of([&] { fs.list_dir("/out/file"); }), ENOTDIR);
    EXPECT_EQ(error_of([&] { fs.fsync_dir("/out/file"); }), ENOTDIR);
    EXPECT_EQ(error_of([&] { fs.fsync_file("/out/missing"); }), ENOENT);
    EXPECT_EQ(error_of([&] { fs.remove_tree("/out/file"); }), ENOTDIR);
    EXPECT_EQ(error_of([&] { fs.remove_tree("/out/missing"); }), 0);
    try {
        fs.read_file("/out/missing");
        FAIL() << "expected a FileSystemError";
    } catch (const FileSystemError& error) {
        EXPECT_EQ(error.operation(), "read_file");
        EXPECT_EQ(error.path(), "/out/missing");
    }
}

TEST_F(SimFileSystemTest, RenameOntoAnEmptyDirectoryReplacesIt) {
    fs.mkdir("/out/a");
    fs.write_file("/out/a/f", "x");
    fs.mkdir("/out/b");
    fs.rename("/out/a", "/out/b");
    EXPECT_EQ(fs.read_file("/out/b/f"), "x");
    EXPECT_FALSE(fs.exists("/out/a"));
}

TEST_F(SimFileSystemTest, EnospcOnWriteLeavesAnEmptyFile) {
    fs.set_fault_injector(fault_on(FsOp::write_file, Fault{FaultKind::enospc, 0}));
    EXPECT_EQ(error_of([&] { fs.write_file("/out/f", "data"); }), ENOSPC);
    EXPECT_EQ(fs.read_file("/out/f"), "");
    EXPECT_EQ(fs.stats().faults_injected, 1U);
}

TEST_F(SimFileSystemTest, ShortWriteLeavesAPrefixAndReportsEnospc) {
    fs.set_fault_injector(fault_on(FsOp::write_file, Fault{FaultKind::short_write, 3}));
    EXPECT_EQ(error_of([&] { fs.write_file("/out/f", "abcdef"); }), ENOSPC);
    EXPECT_EQ(fs.read_file("/out/f"), "abc");
    EXPECT_EQ(fs.stats().bytes_written, 3U);
}

TEST_F(SimFileSystemTest, FailedFsyncMakesNothingDurable) {
    fs.write_file("/out/f", "old");
    fs.sync_all();
    fs.write_file("/out/f", "new");
    fs.set_fault_injector(fault_on(FsOp::fsync_file, Fault{FaultKind::eio, 0}));
    EXPECT_EQ(error_of([&] { fs.fsync_file("/out/f"); }), EIO);
    EXPECT_EQ(fs.durable_content("/out/f"), "old");
}

TEST_F(SimFileSystemTest, FaultedDirectoryOperationsChangeNothing) {
    fs.write_file("/out/f", "x");
    const auto before = fs.snapshot();
    const auto pending = fs.pending_operations();
    fs.set_fault_injector([](const FsOperation&) { return Fault{FaultKind::eio, 0}; });
    EXPECT_EQ(error_of([&] { fs.rename("/out/f", "/out/g"); }), EIO);
    EXPECT_EQ(error_of([&] { fs.unlink("/out/f"); }), EIO);
    EXPECT_EQ(error_of([&] { fs.mkdir("/out/d"); }), EIO);
    EXPECT_EQ(error_of([&] { fs.symlink("f", "/out/l"); }), EIO);
    EXPECT_EQ(error_of([&] { fs.read_file("/out/f"); }), EIO);
    EXPECT_EQ(fs.snapshot(), before);
    EXPECT_EQ(fs.pending_operations(), pending);
}

TEST_F(SimFileSystemTest, ObserverExceptionLeavesStateUnchanged) {
    atomic_replace(fs, "/out", "sidecar.json", "v1");
    fs.write_file("/out/tmp", "v2");
    const auto visible = fs.snapshot(FsView::visible);
    const auto durable = fs.snapshot(FsView::durable);
    const auto pending = fs.pending_operations();
    std::vector<FsOp> seen;
    fs.set_observer([&seen](const FsOperation& op) {
        seen.push_back(op.op);
        throw SimulatedCrash();
    });
    EXPECT_THROW(fs.rename("/out/tmp", "/out/sidecar.json"), SimulatedCrash);
    EXPECT_THROW(fs.write_file("/out/sidecar.json", "v3"), SimulatedCrash);
    EXPECT_THROW(fs.fsync_file("/out/tmp"), SimulatedCrash);
    EXPECT_THROW(fs.fsync_dir("/out"), SimulatedCrash);
    EXPECT_THROW(fs.unlink("/out/tmp"), SimulatedCrash);
    EXPECT_THROW(fs.mkdir("/out/d"), SimulatedCrash);
    EXPECT_THROW(fs.symlink("x", "/out/l"), SimulatedCrash);
    EXPECT_THROW(fs.remove_tree("/out"), SimulatedCrash);
    EXPECT_EQ(fs.snapshot(FsView::visible), visible);
    EXPECT_EQ(fs.snapshot(FsView::durable), durable);
    EXPECT_EQ(fs.pending_operations(), pending);
    EXPECT_THAT(seen, ElementsAre(FsOp::rename, FsOp::write_file, FsOp::fsync_file, FsOp::fsync_dir,
                                  FsOp::unlink, FsOp::mkdir, FsOp::symlink, FsOp::remove_tree));
}

TEST_F(SimFileSystemTest, RemoveTreeIsObservedStepByStepAndCanCrashMidway) {
    fs.mkdir("/out/checkpoint-5");
    fs.write_file("/out/checkpoint-5/a", "1");
    fs.write_file("/out/checkpoint-5/b", "2");
    std::vector<std::string> steps;
    fs.set_observer([&steps](const FsOperation& op) {
        steps.push_back(std::string(to_string(op.op)) + " " + std::string(op.path));
        if (op.path == "/out/checkpoint-5/b") {
            throw SimulatedCrash();
        }
    });
    EXPECT_THROW(fs.remove_tree("/out/checkpoint-5"), SimulatedCrash);
    EXPECT_THAT(steps, ElementsAre("remove_tree /out/checkpoint-5", "unlink /out/checkpoint-5/a",
                                   "unlink /out/checkpoint-5/b"));
    EXPECT_THAT(fs.list_dir("/out/checkpoint-5"), ElementsAre("b"));
}

TEST_F(SimFileSystemTest, UnsyncedRemoveTreeComesBackAfterPowerLoss) {
    fs.mkdir("/out/checkpoint-5");
    fs.write_file("/out/checkpoint-5/a", "1");
    fs.fsync_file("/out/checkpoint-5/a");
    fs.fsync_dir("/out/checkpoint-5");
    fs.fsync_dir("/out");
    fs.remove_tree("/out/checkpoint-5");
    EXPECT_FALSE(fs.exists("/out/checkpoint-5"));
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_EQ(fs.read_file("/out/checkpoint-5/a"), "1");
    fs.remove_tree("/out/checkpoint-5");
    fs.fsync_dir("/out");
    fs.power_loss(PowerLossMode::strict, rng);
    EXPECT_FALSE(fs.exists("/out/checkpoint-5"));
}

}  // namespace
}  // namespace ckpt::sim
