#include "sim/faults/fault_injector.hpp"

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/trainer/job_context.hpp"

namespace ckpt::sim {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

std::string crash_label(CrashKind kind, PowerLossMode mode) {
    return kind == CrashKind::process_kill ? "process_kill" : "power_loss:" + std::string(to_string(mode));
}

}  // namespace

FaultInjector::FaultInjector(const Scenario& scenario, Rng rng)
    : scenario_(scenario),
      rng_(rng),
      plan_(scenario.faults.size()),
      sidecar_path_(join_path(kOutputDir, kSidecarName)),
      link_path_(join_path(kOutputDir, kFinalCheckpointLink)),
      link_temp_path_(join_path(kOutputDir, kLinkTempName)),
      sidecar_temp_prefix_(join_path(kOutputDir, kSidecarTempPrefix)),
      output_dir_(kOutputDir) {
    for (const auto& fault : scenario_.faults) {
        if (fault.action == FaultAction::crash) {
            armed_points_ |= 1U << static_cast<unsigned>(fault.point);
        }
        has_io_faults_ = has_io_faults_ || fault.action == FaultAction::io_error;
    }
    refresh_next_step_fault();
}

void FaultInjector::attach(JobContext* job) noexcept {
    job_ = job;
    io_error_fired_ = false;
    link_published_since_sidecar_ = false;
    sidecar_renamed_ = false;
}

void FaultInjector::refresh_next_step_fault() noexcept {
    next_step_fault_ = INT64_MAX;
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto action = scenario_.faults[i].action;
        const bool step_triggered = action == FaultAction::rank_death || action == FaultAction::preemption ||
                                    action == FaultAction::corrupt_sidecar ||
                                    action == FaultAction::corrupt_checkpoint;
        if (step_triggered && !plan_[i].fired) {
            next_step_fault_ = std::min(next_step_fault_, scenario_.faults[i].at_step);
        }
    }
}

// ---- crash points ----------------------------------------------------------------------------

void FaultInjector::pass(CrashPoint point, int rank) {
    const auto index = static_cast<std::size_t>(point);
    const auto passes = ++passes_[index][static_cast<std::size_t>(rank)];
    if (rank == 0 && job_ != nullptr) {
        job_->stats.crash_point_passes[index] += 1;
        job_->oracles.at_crash_point(point);
    }
    if ((armed_points_ & (1U << index)) == 0) {
        return;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || fault.action != FaultAction::crash || fault.point != point) {
            continue;
        }
        const int target_rank = fault.scope == CrashScope::job ? 0 : fault.rank;
        if (target_rank == rank && passes == fault.occurrence) {
            fire_crash(i, point);
        }
    }
}

void FaultInjector::fire_crash(std::size_t index, CrashPoint point) {
    const auto& fault = scenario_.faults[index];
    plan_[index].fired = true;
    auto& stats = job_->stats;
    stats.crash_point_hits[static_cast<std::size_t>(point)] += 1;
    stats.faults["crash"] += 1;
    if (fault.scope == CrashScope::rank) {
        stats.crashes["rank_kill"] += 1;
        job_->record(fault.rank, "crash", {{"point", to_string(point)}, {"scope", "rank"}});
        job_->scheduler.kill_rank(fault.rank);  // throws RankDied on this rank
        return;
    }
    const auto label = crash_label(fault.kind, fault.power_loss);
    stats.crashes[label] += 1;
    job_->record(0, "crash", {{"point", to_string(point)}, {"scope", "job"}, {"crash_kind", label}});
    throw SimulatedCrash("crash at " + std::string(to_string(point)), fault.kind, fault.power_loss);
}

// ---- step-triggered faults -------------------------------------------------------------------

void FaultInjector::at_step_end(std::int64_t global_step, int rank) {
    if (global_step < next_step_fault_) {
        return;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || fault.action == FaultAction::crash || fault.action == FaultAction::io_error ||
            fault.at_step > global_step) {
            continue;
        }
        const int target_rank = fault.action == FaultAction::rank_death ? fault.rank : 0;
        if (target_rank == rank) {
            fire_step_fault(i, rank);
        }
    }
}

void FaultInjector::corrupt_until_unreadable(const std::string& path) {
    // The fault model declares corruption detectable (as a checksum would make it): damage that
    // still parses would be a silent wrong state no protocol can notice.
    for (int attempt = 0; attempt < 16; ++attempt) {
        job_->fs.corrupt_at_rest(path, rng_);
        const auto bytes = job_->fs.content_in(FsView::visible, path);
        if (!bytes || nlohmann::json::parse(*bytes, nullptr, false).is_discarded()) {
            return;
        }
    }
}

void FaultInjector::fire_step_fault(std::size_t index, int rank) {
    const auto& fault = scenario_.faults[index];
    plan_[index].fired = true;
    refresh_next_step_fault();
    auto& stats = job_->stats;
    const auto name = std::string(to_string(fault.action));
    stats.faults[name] += 1;
    switch (fault.action) {
        case FaultAction::rank_death:
            stats.crashes["rank_kill"] += 1;
            job_->record(rank, "rank_death");
            job_->scheduler.kill_rank(rank);
            return;
        case FaultAction::corrupt_sidecar:
            if (job_->fs.exists_in(FsView::visible, sidecar_path_)) {
                corrupt_until_unreadable(sidecar_path_);
                job_->ledger.sidecar_damaged = true;
                job_->record(-1, "corrupt", {{"path", sidecar_path_}});
            }
            break;
        case FaultAction::corrupt_checkpoint: {
            // The newest checkpoint that is complete on disk right now.
            std::optional<std::int64_t> newest;
            for (const auto& [step, record] : job_->ledger.checkpoints) {
                const auto path =
                    join_path(join_path(output_dir_, checkpoint_dir_name(step)), kTrainerStateName);
                if (job_->fs.content_equals(FsView::visible, path, record.trainer_state_bytes)) {
                    newest = step;
                }
            }
            if (newest) {
                corrupt_until_unreadable(
                    join_path(join_path(output_dir_, checkpoint_dir_name(*newest)), kTrainerStateName));
                job_->ledger.checkpoint_damaged[*newest] = true;
                if (job_->ledger.link_step == newest) {
                    job_->ledger.link_target_damaged = true;
                }
                job_->record(-1, "corrupt", {{"checkpoint", *newest}});
            }
            break;
        }
        default:
            break;
    }
    // Preemption, and the corruptions (which only matter to the next start), end the job here.
    stats.crashes["process_kill"] += 1;
    job_->record(-1, "preemption", {{"after", name}});
    throw SimulatedCrash(name, CrashKind::process_kill, PowerLossMode::strict);
}

// ---- file-system hooks -----------------------------------------------------------------------

void FaultInjector::observe(const FsOperation& operation) {
    if (job_ == nullptr || job_->scheduler.current_rank() != 0) {
        return;
    }
    const bool link_operation =
        operation.path == link_temp_path_ || (operation.op == FsOp::rename && operation.other == link_path_);
    if (link_operation) {
        pass(CrashPoint::inside_link_update, 0);  // a crash here leaves the link as it was
        if (operation.op == FsOp::rename) {
            const auto target = job_->fs.link_target_in(FsView::visible, operation.path);
            if (const auto step = target ? parse_checkpoint_step(*target) : std::nullopt) {
                job_->oracles.on_link_publish(*step);
                job_->record(0, "link", {{"target", *target}});
            }
            link_published_since_sidecar_ = true;
        }
        return;
    }
    const bool sidecar_operation =
        starts_with(operation.path, sidecar_temp_prefix_) || operation.path == sidecar_path_ ||
        (operation.op == FsOp::rename && operation.other == sidecar_path_) ||
        (operation.op == FsOp::fsync_dir && operation.path == output_dir_ && sidecar_renamed_);
    if (!sidecar_operation || operation.op == FsOp::read_file) {
        return;
    }
    if (link_published_since_sidecar_) {
        link_published_since_sidecar_ = false;
        pass(CrashPoint::between_link_and_sidecar, 0);
    }
    sidecar_renamed_ = operation.op == FsOp::rename;
    pass(CrashPoint::inside_sidecar_write, 0);
}

bool FaultInjector::io_target_matches(IoTarget target, const FsOperation& operation,
                                      bool after_callback_rename) const {
    switch (target) {
        case IoTarget::sidecar_write:
            return operation.op == FsOp::write_file &&
                   (starts_with(operation.path, sidecar_temp_prefix_) || operation.path == sidecar_path_);
        case IoTarget::sidecar_fsync:
            return operation.op == FsOp::fsync_file &&
                   (starts_with(operation.path, sidecar_temp_prefix_) || operation.path == sidecar_path_);
        case IoTarget::sidecar_rename:
            return operation.op == FsOp::rename && operation.other == sidecar_path_;
        case IoTarget::directory_fsync:
            // Only the callback's own directory fsync, right after its sidecar or link rename, is
            // in the fault model (rank 0's sidecar and link operations), not the trainer's.
            return operation.op == FsOp::fsync_dir && operation.path == output_dir_ && after_callback_rename;
        case IoTarget::link_symlink:
            return operation.op == FsOp::symlink && operation.path == link_temp_path_;
        case IoTarget::link_rename:
            return operation.op == FsOp::rename && operation.other == link_path_;
    }
    return false;
}

Fault FaultInjector::io_fault(const FsOperation& operation) {
    if (!has_io_faults_ || job_ == nullptr || job_->scheduler.current_rank() != 0) {
        return {};
    }
    const bool dir_fsync_after_rename = callback_rename_pending_;
    if (operation.op == FsOp::rename) {
        callback_rename_pending_ = operation.other == sidecar_path_ || operation.other == link_path_;
    } else if (operation.op == FsOp::fsync_dir) {
        callback_rename_pending_ = false;
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        const auto& fault = scenario_.faults[i];
        if (plan_[i].fired || fault.action != FaultAction::io_error ||
            !io_target_matches(fault.target, operation, dir_fsync_after_rename)) {
            continue;
        }
        if (++plan_[i].seen < fault.occurrence) {
            continue;
        }
        plan_[i].fired = true;
        io_error_fired_ = true;
        const auto name = "io_error:" + std::string(to_string(fault.target));
        job_->stats.faults[name] += 1;
        job_->record(0, "io_error", {{"target", to_string(fault.target)}, {"path", operation.path}});
        return Fault{fault.error, operation.size / 2};
    }
    return {};
}

}  // namespace ckpt::sim
