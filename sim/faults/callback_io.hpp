// The one place that recognises, by path, the callback's own disk operations: its sidecar's
// atomic replace and its final_checkpoint link replacement. The crash-point watcher and the
// I/O fault targets both ask it, so the two can never disagree on what an operation is.
#pragma once

#include <string>
#include <string_view>

#include "sim/disk/sim_file_system.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

class CallbackIo {
  public:
    explicit CallbackIo(std::string_view output_dir);

    // The temp link, or the rename of anything onto final_checkpoint.
    bool is_link_operation(const FsOperation& op) const noexcept {
        return op.path == link_temp_path_ || (op.op == FsOp::rename && op.other == link_path_);
    }
    // The sidecar or one of its temp files (not the directory fsync that follows a rename).
    bool touches_sidecar_file(const FsOperation& op) const noexcept {
        return op.path.starts_with(sidecar_temp_prefix_) || op.path == sidecar_path_;
    }
    bool renames_onto_sidecar(const FsOperation& op) const noexcept {
        return op.op == FsOp::rename && op.other == sidecar_path_;
    }
    bool renames_onto_link(const FsOperation& op) const noexcept {
        return op.op == FsOp::rename && op.other == link_path_;
    }
    bool fsyncs_output_dir(const FsOperation& op) const noexcept {
        return op.op == FsOp::fsync_dir && op.path == output_dir_;
    }
    // Whether `op` is the I/O an io_error fault aims at; a directory fsync counts only right
    // after the callback's own sidecar or link rename (`after_callback_rename`).
    bool matches(IoTarget target, const FsOperation& op, bool after_callback_rename) const noexcept;

  private:
    std::string output_dir_;
    std::string sidecar_path_;
    std::string sidecar_temp_prefix_;
    std::string link_path_;
    std::string link_temp_path_;
};

}  // namespace ckpt::sim
