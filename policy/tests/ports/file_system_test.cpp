#include "policy/ports/file_system.hpp"

#include <cerrno>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/tests/support/file_system_backends.hpp"

namespace ckpt::testing {
using ContractBackends = Backends;
using ContractBackendNames = BackendNames;
}  // namespace ckpt::testing

#include "policy/tests/ports/file_system_contract.hpp"

namespace ckpt {
namespace {

TEST(PathHelpers, JoinPathUsesExactlyOneSeparator) {
    EXPECT_EQ(join_path("out", "checkpoint-5"), "out/checkpoint-5");
    EXPECT_EQ(join_path("out/", "checkpoint-5"), "out/checkpoint-5");
    EXPECT_EQ(join_path("out//", "/checkpoint-5"), "out/checkpoint-5");
    EXPECT_EQ(join_path("/", "tmp"), "/tmp");
    EXPECT_EQ(join_path("", "tmp"), "tmp");
    EXPECT_EQ(join_path("out", ""), "out");
}

TEST(PathHelpers, ParentPath) {
    EXPECT_EQ(parent_path("out/checkpoint-5/trainer_state.json"), "out/checkpoint-5");
    EXPECT_EQ(parent_path("out/checkpoint-5/"), "out");
    EXPECT_EQ(parent_path("out//checkpoint-5"), "out");
    EXPECT_EQ(parent_path("/tmp"), "/");
    EXPECT_EQ(parent_path("/"), "/");
    EXPECT_EQ(parent_path("state.json"), ".");
    EXPECT_EQ(parent_path(""), ".");
}

TEST(PathHelpers, BaseName) {
    EXPECT_EQ(base_name("out/checkpoint-5"), "checkpoint-5");
    EXPECT_EQ(base_name("out/checkpoint-5/"), "checkpoint-5");
    EXPECT_EQ(base_name("state.json"), "state.json");
    EXPECT_EQ(base_name("/"), "");
}

TEST(FileSystemErrorMessage, NamesOperationPathAndErrnoText) {
    const FileSystemError error("fsync_dir", "/out/run", EIO);
    EXPECT_STREQ(error.what(), "fsync_dir '/out/run': Input/output error");
    EXPECT_EQ(error.error_number(), EIO);
}

}  // namespace
}  // namespace ckpt
