// P12's ledger check: a damaged sidecar must fail the resume that reads it.
#include "sim/checks/liveness_checker.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

void LivenessChecker::on(const IncarnationBegan&) {
    damaged_sidecar_at_start_ = context_.ledger.sidecar_damaged &&
                                context_.fs.exists_in(FsView::visible, join_path(kOutputDir, kSidecarName));
}

void LivenessChecker::on(const TrainBegan&) {
    if (damaged_sidecar_at_start_) {
        damaged_sidecar_at_start_ = false;
        context_.violate(Property::P12,
                         "the resume read a damaged sidecar and went on instead of failing "
                         "with the sidecar restore error");
    }
}

}  // namespace ckpt::sim
