// The FileSystem port's contract as typed tests, run on every implementation: POSIX and the
// in-memory double (policy_tests) and the simulator's SimFileSystem (sim_tests), so no backend can
// drift from POSIX. The including file first declares ckpt::testing::ContractBackends (a
// ::testing::Types of backends, each with a `fs` and an existing directory `root`) and
// ckpt::testing::ContractBackendNames; it includes this header once. A backend that diverges from
// POSIX where fixing it would change other behaviour declares why (kRenameErrorNamesOnlySource),
// and that one test is skipped with the reason. Depends on the port only.
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/ports/file_system.hpp"

namespace ckpt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

template <typename Backend>
class FileSystemContract : public ::testing::Test {
  protected:
    FileSystem& fs() { return backend_.fs; }
    std::string at(std::string_view name) const { return join_path(backend_.root, name); }

    template <typename Call>
    int errno_of(Call&& call) {
        try {
            call();
        } catch (const FileSystemError& error) {
            return error.error_number();
        }
        return 0;
    }

  private:
    Backend backend_;
};

TYPED_TEST_SUITE(FileSystemContract, ckpt::testing::ContractBackends, ckpt::testing::ContractBackendNames);

TYPED_TEST(FileSystemContract, WriteThenReadReturnsTheBytesAndRewriteTruncates) {
    const std::string path = this->at("state.json");
    this->fs().write_file(path, "a much longer first version");
    this->fs().write_file(path, std::string("short\0bytes", 11));
    EXPECT_EQ(this->fs().read_file(path), std::string("short\0bytes", 11));
}

TYPED_TEST(FileSystemContract, ReadBytesHoldsReadFilesBytesAndErrors) {
    const std::string path = this->at("trainer_state.json");
    this->fs().write_file(path, std::string("{\"global_step\": 5}\0", 19));
    EXPECT_EQ(this->fs().read_bytes(path).str(), this->fs().read_file(path));
    this->fs().write_file(path, "");
    EXPECT_TRUE(this->fs().read_bytes(path).empty());
    EXPECT_EQ(this->errno_of([&] { this->fs().read_bytes(this->at("absent.json")); }), ENOENT);
    this->fs().mkdir(this->at("checkpoint-5"));
    EXPECT_EQ(this->errno_of([&] { this->fs().read_bytes(this->at("checkpoint-5")); }), EISDIR);
}

TYPED_TEST(FileSystemContract, LargeWritesArriveWhole) {
    std::string big(3 << 20, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) {
        big[i] = static_cast<char>(i * 7919 % 251);
    }
    this->fs().write_file(this->at("weights.bin"), big);
    EXPECT_EQ(this->fs().read_file(this->at("weights.bin")), big);
}

TYPED_TEST(FileSystemContract, ReadingAMissingFileNamesOperationPathAndErrno) {
    const std::string path = this->at("absent.json");
    try {
        this->fs().read_file(path);
        FAIL() << "read_file of a missing file returned";
    } catch (const FileSystemError& error) {
        EXPECT_EQ(error.error_number(), ENOENT);
        EXPECT_EQ(error.path(), path);
        EXPECT_EQ(error.operation(), "read_file");
        EXPECT_EQ(std::string(error.what()), "read_file '" + path + "': No such file or directory");
    }
}

TYPED_TEST(FileSystemContract, ReadingADirectoryIsEisdir) {
    this->fs().mkdir(this->at("checkpoint-5"));
    EXPECT_EQ(this->errno_of([&] { this->fs().read_file(this->at("checkpoint-5")); }), EISDIR);
}

TYPED_TEST(FileSystemContract, WritingIntoAMissingDirectoryIsEnoent) {
    EXPECT_EQ(this->errno_of([&] { this->fs().write_file(this->at("nowhere/state.json"), "{}"); }), ENOENT);
}

TYPED_TEST(FileSystemContract, MkdirAcceptsAnExistingDirectoryButNotAFile) {
    const std::string dir = this->at("checkpoint-5");
    this->fs().mkdir(dir);
    this->fs().mkdir(dir);
    EXPECT_TRUE(this->fs().is_dir(dir));

    this->fs().write_file(this->at("file"), "x");
    EXPECT_EQ(this->errno_of([&] { this->fs().mkdir(this->at("file")); }), EEXIST);
    EXPECT_EQ(this->errno_of([&] { this->fs().mkdir(this->at("missing/child")); }), ENOENT);
}

TYPED_TEST(FileSystemContract, MkdirAcceptsASymlinkToADirectory) {
    this->fs().mkdir(this->at("real"));
    this->fs().symlink("real", this->at("alias"));
    this->fs().mkdir(this->at("alias"));
    EXPECT_TRUE(this->fs().is_symlink(this->at("alias")));
}

TYPED_TEST(FileSystemContract, MakeDirsCreatesEveryLevelAndIsIdempotent) {
    const std::string deep = this->at("a/b/c/");
    make_dirs(this->fs(), deep);
    make_dirs(this->fs(), deep);
    EXPECT_TRUE(this->fs().is_dir(this->at("a/b/c")));
    this->fs().write_file(this->at("a/file"), "x");
    EXPECT_EQ(this->errno_of([&] { make_dirs(this->fs(), this->at("a/file/d")); }), EEXIST);
}

TYPED_TEST(FileSystemContract, ListDirIsSortedByteWiseWithoutDotEntries) {
    for (const char* name : {"checkpoint-10", "Zeta", "checkpoint-9", "checkpoint-1"}) {
        this->fs().write_file(this->at(name), "");
    }
    this->fs().mkdir(this->at("checkpoint-2"));
    this->fs().symlink("checkpoint-2", this->at("final_checkpoint"));
    make_dirs(this->fs(), this->at("checkpoint-2/nested"));
    EXPECT_THAT(this->fs().list_dir(this->at("")),
                ElementsAre("Zeta", "checkpoint-1", "checkpoint-10", "checkpoint-2", "checkpoint-9",
                            "final_checkpoint"));
    EXPECT_THAT(this->fs().list_dir(this->at("final_checkpoint")), ElementsAre("nested"));
    EXPECT_THAT(this->fs().list_dir(this->at("checkpoint-2/nested")), IsEmpty());
}

TYPED_TEST(FileSystemContract, ListDirOfAFileOrMissingPathFails) {
    this->fs().write_file(this->at("file"), "x");
    EXPECT_EQ(this->errno_of([&] { this->fs().list_dir(this->at("file")); }), ENOTDIR);
    EXPECT_EQ(this->errno_of([&] { this->fs().list_dir(this->at("missing")); }), ENOENT);
}

TYPED_TEST(FileSystemContract, RenameReplacesTheDestinationFile) {
    this->fs().write_file(this->at("state.json"), "old");
    this->fs().write_file(this->at("state.json.tmp"), "new");
    this->fs().rename(this->at("state.json.tmp"), this->at("state.json"));
    EXPECT_EQ(this->fs().read_file(this->at("state.json")), "new");
    EXPECT_FALSE(this->fs().exists(this->at("state.json.tmp")));
}

TYPED_TEST(FileSystemContract, RenameMovesADirectoryWithItsContents) {
    make_dirs(this->fs(), this->at("tmp-checkpoint/inner"));
    this->fs().write_file(this->at("tmp-checkpoint/inner/model.bin"), "weights");
    this->fs().rename(this->at("tmp-checkpoint"), this->at("checkpoint-7"));
    EXPECT_FALSE(this->fs().exists(this->at("tmp-checkpoint")));
    EXPECT_EQ(this->fs().read_file(this->at("checkpoint-7/inner/model.bin")), "weights");
}

TYPED_TEST(FileSystemContract, RenameFailuresReportErrno) {
    EXPECT_EQ(this->errno_of([&] { this->fs().rename(this->at("missing"), this->at("x")); }), ENOENT);

    make_dirs(this->fs(), this->at("a"));
    make_dirs(this->fs(), this->at("b"));
    this->fs().write_file(this->at("b/keep"), "x");
    const int onto_full = this->errno_of([&] { this->fs().rename(this->at("a"), this->at("b")); });
    EXPECT_TRUE(onto_full == ENOTEMPTY || onto_full == EEXIST) << onto_full;

    this->fs().write_file(this->at("file"), "x");
    EXPECT_EQ(this->errno_of([&] { this->fs().rename(this->at("file"), this->at("a")); }), EISDIR);
    EXPECT_EQ(this->errno_of([&] { this->fs().rename(this->at("a"), this->at("a/inside")); }), EINVAL);
}

TYPED_TEST(FileSystemContract, RenameMentionsBothPathsWhenItFails) {
    if constexpr (requires { TypeParam::kRenameErrorNamesOnlySource; }) {
        GTEST_SKIP() << TypeParam::kRenameErrorNamesOnlySource;
    }
    try {
        this->fs().rename(this->at("from"), this->at("to"));
        FAIL() << "rename of a missing file returned";
    } catch (const FileSystemError& error) {
        EXPECT_THAT(error.what(), ::testing::HasSubstr(this->at("from")));
        EXPECT_THAT(error.what(), ::testing::HasSubstr(this->at("to")));
    }
}

TYPED_TEST(FileSystemContract, UnlinkRemovesFilesAndLinksButNotDirectories) {
    this->fs().write_file(this->at("file"), "x");
    this->fs().mkdir(this->at("dir"));
    this->fs().symlink("dir", this->at("link"));
    this->fs().unlink(this->at("file"));
    this->fs().unlink(this->at("link"));
    EXPECT_FALSE(this->fs().exists(this->at("file")));
    EXPECT_FALSE(this->fs().is_symlink(this->at("link")));
    EXPECT_TRUE(this->fs().is_dir(this->at("dir")));
    EXPECT_EQ(this->errno_of([&] { this->fs().unlink(this->at("dir")); }), EISDIR);
    EXPECT_EQ(this->errno_of([&] { this->fs().unlink(this->at("file")); }), ENOENT);
}

TYPED_TEST(FileSystemContract, RemoveTreeDeletesEverythingBelow) {
    make_dirs(this->fs(), this->at("checkpoint-3/a/b"));
    this->fs().write_file(this->at("checkpoint-3/a/b/x"), "1");
    this->fs().write_file(this->at("checkpoint-3/y"), "2");
    this->fs().write_file(this->at("checkpoint-30"), "sibling with a shared prefix");
    this->fs().remove_tree(this->at("checkpoint-3"));
    EXPECT_FALSE(this->fs().exists(this->at("checkpoint-3")));
    EXPECT_THAT(this->fs().list_dir(this->at("")), ElementsAre("checkpoint-30"));
}

TYPED_TEST(FileSystemContract, RemoveTreeOfAMissingPathIsANoOp) {
    this->fs().remove_tree(this->at("never-created"));
    this->fs().remove_tree(this->at("never-created/below"));
    this->fs().write_file(this->at("file"), "x");
    this->fs().remove_tree(this->at("file/below"));
    EXPECT_TRUE(this->fs().exists(this->at("file")));
}

TYPED_TEST(FileSystemContract, RemoveTreeNeverFollowsSymlinks) {
    make_dirs(this->fs(), this->at("best"));
    this->fs().write_file(this->at("best/model.bin"), "keep me");
    make_dirs(this->fs(), this->at("doomed"));
    this->fs().symlink("../best", this->at("doomed/link-to-best"));
    this->fs().symlink(this->at("best"), this->at("doomed/absolute-link"));
    this->fs().remove_tree(this->at("doomed"));
    EXPECT_FALSE(this->fs().exists(this->at("doomed")));
    EXPECT_EQ(this->fs().read_file(this->at("best/model.bin")), "keep me");
}

TYPED_TEST(FileSystemContract, RemoveTreeRefusesAFileOrATopLevelSymlink) {
    make_dirs(this->fs(), this->at("best"));
    this->fs().symlink("best", this->at("final_checkpoint"));
    this->fs().write_file(this->at("file"), "x");
    EXPECT_EQ(this->errno_of([&] { this->fs().remove_tree(this->at("final_checkpoint")); }), ENOTDIR);
    EXPECT_EQ(this->errno_of([&] { this->fs().remove_tree(this->at("file")); }), ENOTDIR);
    EXPECT_TRUE(this->fs().is_dir(this->at("best")));
}

TYPED_TEST(FileSystemContract, ExistsAndIsDirFollowLinksIsSymlinkDoesNot) {
    this->fs().mkdir(this->at("checkpoint-4"));
    this->fs().write_file(this->at("file"), "x");
    this->fs().symlink("checkpoint-4", this->at("final_checkpoint"));
    this->fs().symlink("checkpoint-99", this->at("dangling"));

    EXPECT_TRUE(this->fs().exists(this->at("final_checkpoint")));
    EXPECT_TRUE(this->fs().is_dir(this->at("final_checkpoint")));
    EXPECT_TRUE(this->fs().is_symlink(this->at("final_checkpoint")));

    EXPECT_FALSE(this->fs().exists(this->at("dangling")));
    EXPECT_FALSE(this->fs().is_dir(this->at("dangling")));
    EXPECT_TRUE(this->fs().is_symlink(this->at("dangling")));

    EXPECT_TRUE(this->fs().exists(this->at("file")));
    EXPECT_FALSE(this->fs().is_dir(this->at("file")));
    EXPECT_FALSE(this->fs().is_symlink(this->at("file")));
    EXPECT_FALSE(this->fs().exists(this->at("file/below")));
    EXPECT_FALSE(this->fs().is_symlink(this->at("missing")));
}

TYPED_TEST(FileSystemContract, SymlinkStoresItsTargetVerbatim) {
    make_dirs(this->fs(), this->at("runs/checkpoint-8"));
    this->fs().write_file(this->at("runs/checkpoint-8/trainer_state.json"), "{}");
    this->fs().symlink("./checkpoint-8/", this->at("runs/final_checkpoint"));
    EXPECT_EQ(this->fs().readlink(this->at("runs/final_checkpoint")), "./checkpoint-8/");
    EXPECT_EQ(this->fs().read_file(this->at("runs/final_checkpoint/trainer_state.json")), "{}");
}

TYPED_TEST(FileSystemContract, RelativeTargetsResolveAgainstTheLinksDirectory) {
    make_dirs(this->fs(), this->at("a/b"));
    make_dirs(this->fs(), this->at("other"));
    this->fs().write_file(this->at("other/file"), "found");
    this->fs().symlink("../../other/file", this->at("a/b/up"));
    this->fs().symlink("b/up", this->at("a/chain"));
    EXPECT_EQ(this->fs().read_file(this->at("a/b/up")), "found");
    EXPECT_EQ(this->fs().read_file(this->at("a/chain")), "found");
}

TYPED_TEST(FileSystemContract, WritingThroughALinkWritesItsTarget) {
    this->fs().write_file(this->at("target"), "old");
    this->fs().symlink("target", this->at("link"));
    this->fs().write_file(this->at("link"), "new");
    EXPECT_EQ(this->fs().read_file(this->at("target")), "new");
    EXPECT_TRUE(this->fs().is_symlink(this->at("link")));
}

TYPED_TEST(FileSystemContract, SymlinkFailures) {
    this->fs().write_file(this->at("file"), "x");
    EXPECT_EQ(this->errno_of([&] { this->fs().symlink("anything", this->at("file")); }), EEXIST);
    EXPECT_EQ(this->errno_of([&] { this->fs().readlink(this->at("file")); }), EINVAL);
    EXPECT_EQ(this->errno_of([&] { this->fs().readlink(this->at("missing")); }), ENOENT);
}

TYPED_TEST(FileSystemContract, SymlinkLoopsReadAsAbsent) {
    this->fs().symlink("loop-b", this->at("loop-a"));
    this->fs().symlink("loop-a", this->at("loop-b"));
    EXPECT_FALSE(this->fs().exists(this->at("loop-a")));
    EXPECT_TRUE(this->fs().is_symlink(this->at("loop-a")));
    EXPECT_EQ(this->errno_of([&] { this->fs().read_file(this->at("loop-a")); }), ELOOP);
}

TYPED_TEST(FileSystemContract, FsyncNeedsAnExistingEntryOfTheRightKind) {
    this->fs().write_file(this->at("file"), "x");
    this->fs().fsync_file(this->at("file"));
    this->fs().fsync_dir(this->at(""));
    EXPECT_EQ(this->errno_of([&] { this->fs().fsync_file(this->at("missing")); }), ENOENT);
    EXPECT_EQ(this->errno_of([&] { this->fs().fsync_dir(this->at("missing")); }), ENOENT);
    EXPECT_EQ(this->errno_of([&] { this->fs().fsync_dir(this->at("file")); }), ENOTDIR);
}

}  // namespace
}  // namespace ckpt
