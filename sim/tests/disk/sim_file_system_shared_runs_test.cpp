// SimFileSystem's files held as shared runs (write_bytes, read_bytes): a file that shares a
// buffer with other files reads back as its own bytes, keeps sharing the buffer while nothing
// damages it, and is cut, torn and compared exactly as the same bytes written whole would be.
#include <cerrno>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "sim/disk/sim_file_system.hpp"
#include "sim/tests/disk/sim_file_system_fixture.hpp"

namespace ckpt::sim {
namespace {

using testing::error_of;
using testing::SimFileSystemTest;

// head + the first `shared_length` bytes of `record` + tail, as a save's trainer_state.json is.
FileBytes document(const std::shared_ptr<std::string>& record, std::size_t shared_length) {
    return FileBytes{{std::make_shared<const std::string>("{\"log\": ["), 9},
                     {record, shared_length},
                     {std::make_shared<const std::string>("]}"), 2}};
}

TEST_F(SimFileSystemTest, FilesSharingABufferReadBackAsTheirOwnBytes) {
    auto record = std::make_shared<std::string>("1");
    fs.write_bytes("/out/a.json", document(record, 1));
    record->append(", 2");
    fs.write_bytes("/out/b.json", document(record, 4));
    EXPECT_EQ(fs.read_file("/out/a.json"), "{\"log\": [1]}");
    EXPECT_EQ(fs.read_file("/out/b.json"), "{\"log\": [1, 2]}");
    const FileBytes read = fs.read_bytes("/out/b.json");
    ASSERT_EQ(read.run_count(), 3U);
    EXPECT_EQ(read.begin()[1].buffer, record);  // shared, not copied
    EXPECT_TRUE(fs.content_equals(FsView::visible, "/out/a.json", document(record, 1)));
    EXPECT_TRUE(fs.content_equals(FsView::visible, "/out/a.json", std::string("{\"log\": [1]}")));
    EXPECT_FALSE(fs.content_equals(FsView::visible, "/out/a.json", document(record, 4)));
    EXPECT_EQ(fs.stats().bytes_written, 12U + 15U);
}

TEST_F(SimFileSystemTest, AShortWriteOfRunsLeavesTheirPrefix) {
    fs.set_fault_injector([](const FsOperation& operation) {
        return operation.op == FsOp::write_file ? Fault{FaultKind::short_write, 11} : Fault{};
    });
    const auto record = std::make_shared<std::string>("1, 2");
    EXPECT_EQ(error_of([&] { fs.write_bytes("/out/a.json", document(record, 4)); }), ENOSPC);
    EXPECT_EQ(fs.read_file("/out/a.json"), "{\"log\": [1,");
}

TEST_F(SimFileSystemTest, ATornPowerLossCutsSharedRunsAsItCutsOneString) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        SimFileSystem shared;
        SimFileSystem whole;
        const auto record = std::make_shared<std::string>("1, 2, 3");
        for (SimFileSystem* disk : {&shared, &whole}) {
            disk->mkdir("/out");
            disk->write_file("/out/a.json", "{\"log\": []}");
            disk->sync_all();
        }
        shared.write_bytes("/out/a.json", document(record, 7));
        whole.write_file("/out/a.json", document(record, 7).str());
        Rng shared_loss(seed);
        Rng whole_loss(seed);
        shared.power_loss(PowerLossMode::torn, shared_loss);
        whole.power_loss(PowerLossMode::torn, whole_loss);
        EXPECT_EQ(shared.read_file("/out/a.json"), whole.read_file("/out/a.json")) << "seed " << seed;
    }
}

}  // namespace
}  // namespace ckpt::sim
