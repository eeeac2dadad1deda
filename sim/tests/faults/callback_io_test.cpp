// CallbackIo: the one classifier of the callback's own disk operations. The crash-point
// watcher and the io_error targets both rely on it, so its answers are pinned down here.
#include "sim/faults/callback_io.hpp"

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

constexpr const char* kDir = "/run/output";

FsOperation op(FsOp kind, std::string_view path, std::string_view other = {}) {
    return FsOperation{kind, path, other, 0};
}

TEST(CallbackIoTest, RecognisesTheLinkReplacement) {
    const CallbackIo io(kDir);
    EXPECT_TRUE(
        io.is_link_operation(op(FsOp::symlink, "/run/output/.final_checkpoint.tmp", "checkpoint-10")));
    EXPECT_TRUE(io.is_link_operation(
        op(FsOp::rename, "/run/output/.final_checkpoint.tmp", "/run/output/final_checkpoint")));
    EXPECT_TRUE(io.renames_onto_link(
        op(FsOp::rename, "/run/output/.final_checkpoint.tmp", "/run/output/final_checkpoint")));
    EXPECT_FALSE(io.is_link_operation(op(FsOp::write_file, "/run/output/checkpoint-10/trainer_state.json")));
}

TEST(CallbackIoTest, RecognisesTheSidecarAndItsTempFiles) {
    const CallbackIo io(kDir);
    EXPECT_TRUE(
        io.touches_sidecar_file(op(FsOp::write_file, "/run/output/.checkpoint_eval_state.json.tmp-sim-1")));
    EXPECT_TRUE(io.touches_sidecar_file(op(FsOp::read_file, "/run/output/checkpoint_eval_state.json")));
    EXPECT_TRUE(io.renames_onto_sidecar(op(FsOp::rename, "/run/output/.checkpoint_eval_state.json.tmp-sim-1",
                                           "/run/output/checkpoint_eval_state.json")));
    EXPECT_FALSE(io.touches_sidecar_file(op(FsOp::write_file, "/run/output/checkpoint-10/optimizer.pt")));
}

TEST(CallbackIoTest, DirectoryFsyncIsATargetOnlyAfterTheCallbacksRename) {
    const CallbackIo io(kDir);
    const auto fsync_dir = op(FsOp::fsync_dir, kDir);
    EXPECT_TRUE(io.fsyncs_output_dir(fsync_dir));
    EXPECT_TRUE(io.matches(IoTarget::directory_fsync, fsync_dir, /*after_callback_rename=*/true));
    EXPECT_FALSE(io.matches(IoTarget::directory_fsync, fsync_dir, /*after_callback_rename=*/false));
    EXPECT_FALSE(
        io.matches(IoTarget::directory_fsync, op(FsOp::fsync_dir, "/run/output/checkpoint-10"), true));
}

TEST(CallbackIoTest, EachIoTargetMatchesItsOwnOperation) {
    const CallbackIo io(kDir);
    const auto temp = "/run/output/.checkpoint_eval_state.json.tmp-sim-1";
    EXPECT_TRUE(io.matches(IoTarget::sidecar_write, op(FsOp::write_file, temp), false));
    EXPECT_FALSE(io.matches(IoTarget::sidecar_write, op(FsOp::fsync_file, temp), false));
    EXPECT_TRUE(io.matches(IoTarget::sidecar_fsync, op(FsOp::fsync_file, temp), false));
    EXPECT_TRUE(io.matches(IoTarget::sidecar_rename,
                           op(FsOp::rename, temp, "/run/output/checkpoint_eval_state.json"), false));
    EXPECT_TRUE(
        io.matches(IoTarget::link_symlink, op(FsOp::symlink, "/run/output/.final_checkpoint.tmp"), false));
    EXPECT_FALSE(io.matches(IoTarget::link_rename,
                            op(FsOp::rename, temp, "/run/output/checkpoint_eval_state.json"), false));
}

}  // namespace
}  // namespace ckpt::sim
