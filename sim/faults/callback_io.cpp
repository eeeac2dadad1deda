// The callback's paths, built once from the output directory, and the io_error targets
// expressed through the same tests the crash-point watcher uses.
#include "sim/faults/callback_io.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"

namespace ckpt::sim {

CallbackIo::CallbackIo(std::string_view output_dir)
    : output_dir_(output_dir),
      sidecar_path_(join_path(output_dir_, kSidecarName)),
      sidecar_temp_prefix_(join_path(output_dir_, kSidecarTempPrefix)),
      link_path_(join_path(output_dir_, kFinalCheckpointLink)),
      link_temp_path_(join_path(output_dir_, kLinkTempName)) {}

bool CallbackIo::matches(IoTarget target, const FsOperation& op, bool after_callback_rename) const noexcept {
    switch (target) {
        case IoTarget::sidecar_write:
            return op.op == FsOp::write_file && touches_sidecar_file(op);
        case IoTarget::sidecar_fsync:
            return op.op == FsOp::fsync_file && touches_sidecar_file(op);
        case IoTarget::sidecar_rename:
            return renames_onto_sidecar(op);
        case IoTarget::directory_fsync:
            // Only the callback's own directory fsync is in the fault model, not the trainer's.
            return fsyncs_output_dir(op) && after_callback_rename;
        case IoTarget::link_symlink:
            return op.op == FsOp::symlink && op.path == link_temp_path_;
        case IoTarget::link_rename:
            return renames_onto_link(op);
    }
    return false;
}

}  // namespace ckpt::sim
