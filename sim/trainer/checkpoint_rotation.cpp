// Transformers' _sorted_checkpoints / _rotate_checkpoints over the simulated output directory
// (facts: trainer.py, `use_mtime=True` since v4.52). Sorting ties break by path, as Python's
// sort of (mtime, path) tuples does.
#include "sim/trainer/checkpoint_rotation.hpp"

#include <algorithm>
#include <tuple>

#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

constexpr std::int64_t kMtimeReliableSpanMs = 1'000;  // "less than 1 second": fall back to steps
constexpr std::string_view kFinalCheckpointLinkName = "final_checkpoint";  // the callback's link

}  // namespace

std::vector<transformers::Checkpoint> sorted_checkpoints(std::vector<transformers::Checkpoint> checkpoints,
                                                         RotationOrder order,
                                                         const CheckpointMtimes& mtimes) {
    if (order == RotationOrder::step || checkpoints.size() < 2) {
        return checkpoints;
    }
    const auto mtime = [&](const transformers::Checkpoint& entry) {
        return mtimes.mtime_ms(entry.name).value_or(0);
    };
    std::sort(checkpoints.begin(), checkpoints.end(),
              [&](const transformers::Checkpoint& a, const transformers::Checkpoint& b) {
                  return std::tuple(mtime(a), a.name) < std::tuple(mtime(b), b.name);
              });
    if (mtime(checkpoints.back()) - mtime(checkpoints.front()) < kMtimeReliableSpanMs) {
        std::sort(checkpoints.begin(), checkpoints.end(),
                  [](const transformers::Checkpoint& a, const transformers::Checkpoint& b) {
                      return a.step < b.step;
                  });
    }
    return checkpoints;
}

std::vector<transformers::Checkpoint> checkpoints_to_rotate(
    const std::vector<transformers::Checkpoint>& sorted, std::int64_t save_total_limit,
    std::optional<std::int64_t> protected_step) {
    if (save_total_limit <= 0 || static_cast<std::int64_t>(sorted.size()) <= save_total_limit) {
        return {};
    }
    auto order = sorted;
    const auto best = std::find_if(order.begin(), order.end(), [&](const transformers::Checkpoint& entry) {
        return entry.step == protected_step;
    });
    std::int64_t limit = save_total_limit;
    if (best != order.end()) {
        // "Make sure we don't delete the best model": bubbled to index len-2.
        const auto best_index = static_cast<std::size_t>(best - order.begin());
        for (std::size_t i = best_index; i + 2 < order.size(); ++i) {
            std::swap(order[i], order[i + 1]);
        }
    }
    // "we could end up deleting the last checkpoint": a best that is not the newest keeps two.
    if (protected_step && limit == 1 && order.back().step != *protected_step) {
        limit = 2;
    }
    const auto excess = static_cast<std::int64_t>(order.size()) - limit;
    if (excess <= 0) {
        return {};
    }
    return {order.begin(), order.begin() + excess};
}

std::optional<std::int64_t> linked_checkpoint_step(FileSystem& fs) {
    const auto link = join_path(kOutputDir, kFinalCheckpointLinkName);
    if (!fs.is_symlink(link)) {
        return std::nullopt;
    }
    std::string target = fs.readlink(link);
    while (target.size() > 1 && target.back() == '/') {
        target.pop_back();
    }
    if (target.starts_with("./")) {
        target.erase(0, 2);
    } else if (target.starts_with('/')) {
        // An absolute target names a checkpoint only inside output_dir itself.
        if (parent_path(target) != kOutputDir) {
            return std::nullopt;
        }
        target = base_name(target);
    }
    return transformers::checkpoint_step(target);
}

}  // namespace ckpt::sim
