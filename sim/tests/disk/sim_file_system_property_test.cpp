// SimFileSystem's crash model over random programs (RapidCheck).
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/disk/sim_file_system.hpp"

// Properties of the crash model over random programs: what an oracle reads from the durable
// view is what a power loss leaves, and a fully synced state survives every kind of loss.

namespace ckpt::sim {
namespace {

// A random program over a small set of names, so operations collide often: renames over
// existing names, writes through links, removals of trees holding un-synced files.
const std::vector<std::string> kPaths{"/a", "/b", "/d", "/d/a", "/d/b", "/d/e", "/d/e/a", "/l", "/d/l"};

void run_program(SimFileSystem& fs, const std::vector<std::tuple<int, int, int>>& program) {
    int version = 0;
    for (const auto& [kind, first, second] : program) {
        const std::string& path = kPaths[static_cast<std::size_t>(first)];
        const std::string& other = kPaths[static_cast<std::size_t>(second)];
        try {
            switch (kind) {
                case 0:
                    // Content distinct per write, so a lost or replayed write shows. (Not built
                    // with "v" + std::to_string: GCC 12 gives a false -Wrestrict warning there.)
                    fs.write_file(path, std::to_string(++version));
                    break;
                case 1:
                    fs.fsync_file(path);
                    break;
                case 2:
                    fs.fsync_dir(path);
                    break;
                case 3:
                    fs.rename(path, other);
                    break;
                case 4:
                    fs.unlink(path);
                    break;
                case 5:
                    fs.mkdir(path);
                    break;
                case 6:
                    fs.remove_tree(path);
                    break;
                default:
                    fs.symlink(other.substr(1), path);
                    break;
            }
        } catch (const FileSystemError&) {
            // Invalid steps are part of the program; the file system must stay consistent.
        }
    }
}

rc::Gen<std::vector<std::tuple<int, int, int>>> programs() {
    const int paths = static_cast<int>(kPaths.size());
    return rc::gen::container<std::vector<std::tuple<int, int, int>>>(
        rc::gen::tuple(rc::gen::inRange(0, 8), rc::gen::inRange(0, paths), rc::gen::inRange(0, paths)));
}

// fsyncs every file and directory that is visible, the way a careful program would.
void fsync_everything(SimFileSystem& fs) {
    fs.fsync_dir("/");
    for (const FsEntry& entry : fs.snapshot()) {
        if (entry.kind == EntryKind::directory) {
            fs.fsync_dir(entry.path);
        } else if (entry.kind == EntryKind::file) {
            fs.fsync_file(entry.path);
        }
    }
}

RC_GTEST_PROP(SimFileSystemProperty, FullySyncedStateSurvivesAnyPowerLoss, ()) {
    const auto program = *programs();
    const auto mode = *rc::gen::element(PowerLossMode::strict, PowerLossMode::prefix, PowerLossMode::torn);
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    SimFileSystem fs;
    run_program(fs, program);
    fsync_everything(fs);
    const auto before = fs.snapshot();
    RC_ASSERT(fs.snapshot(FsView::durable) == before);
    Rng rng(seed);
    fs.power_loss(mode, rng);
    RC_ASSERT(fs.snapshot() == before);
}

RC_GTEST_PROP(SimFileSystemProperty, StrictPowerLossLeavesExactlyTheDurableView, ()) {
    const auto program = *programs();
    SimFileSystem fs;
    run_program(fs, program);
    const auto durable = fs.snapshot(FsView::durable);
    Rng rng(0);
    fs.power_loss(PowerLossMode::strict, rng);
    RC_ASSERT(fs.snapshot() == durable);
    RC_ASSERT(fs.pending_operations() == 0U);
}

RC_GTEST_PROP(SimFileSystemProperty, ProcessKillChangesNothing, ()) {
    const auto program = *programs();
    SimFileSystem fs;
    run_program(fs, program);
    const auto visible = fs.snapshot();
    const auto durable = fs.snapshot(FsView::durable);
    fs.process_kill();
    RC_ASSERT(fs.snapshot() == visible);
    RC_ASSERT(fs.snapshot(FsView::durable) == durable);
}

RC_GTEST_PROP(SimFileSystemProperty, PowerLossIsDeterministicGivenTheSeed, ()) {
    const auto program = *programs();
    const auto mode = *rc::gen::element(PowerLossMode::prefix, PowerLossMode::torn);
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    SimFileSystem first;
    SimFileSystem second;
    run_program(first, program);
    run_program(second, program);
    Rng rng_first(seed);
    Rng rng_second(seed);
    first.power_loss(mode, rng_first);
    second.power_loss(mode, rng_second);
    RC_ASSERT(first.snapshot() == second.snapshot());
}

}  // namespace
}  // namespace ckpt::sim
