// The callback's crash points, in the order its operations pass them; a crash the plan makes
// due at one of them throws out of the disk's observer, before the operation happens.
#include "sim/faults/callback_crash_points.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"

namespace ckpt::sim {

void CallbackCrashPoints::observe(const FsOperation& op, const SimFileSystem& fs, EventSink& events) {
    if (io_.is_link_operation(op)) {
        events.emit(CrashPointPassed{CrashPoint::inside_link_update, 0});  // leaves the link as it was
        if (op.op == FsOp::rename) {
            const auto target = fs.link_target_in(FsView::visible, op.path);
            if (const auto step = target ? parse_checkpoint_step(*target) : std::nullopt) {
                events.emit(LinkPublished{*step, *target});
            }
            link_published_since_sidecar_ = true;
        }
        return;
    }
    const bool sidecar_operation = io_.touches_sidecar_file(op) || io_.renames_onto_sidecar(op) ||
                                   (io_.fsyncs_output_dir(op) && sidecar_renamed_);
    if (!sidecar_operation || op.op == FsOp::read_file) {
        return;
    }
    if (link_published_since_sidecar_) {
        link_published_since_sidecar_ = false;
        events.emit(CrashPointPassed{CrashPoint::between_link_and_sidecar, 0});
    }
    sidecar_renamed_ = op.op == FsOp::rename;
    events.emit(CrashPointPassed{CrashPoint::inside_sidecar_write, 0});
}

}  // namespace ckpt::sim
