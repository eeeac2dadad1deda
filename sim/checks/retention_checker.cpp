// The kept-set rule of retention_checker.hpp, restated without the port's pruning function:
// the expectation is computed from the listing at the rename, the verdict from the listing once
// the callback returned.
#include "sim/checks/retention_checker.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

// "checkpoint-" followed by decimal digits only, as Transformers names its directories.
std::optional<std::int64_t> checkpoint_step_of(std::string_view name) {
    constexpr std::string_view prefix = "checkpoint-";
    if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 18) {
        return std::nullopt;
    }
    std::int64_t step = 0;
    for (const char c : name.substr(prefix.size())) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        step = step * 10 + (c - '0');
    }
    return step;
}

namespace {

std::string describe_steps(const std::vector<std::int64_t>& steps) {
    std::string out = "[";
    for (const auto step : steps) {
        out += (out.size() > 1 ? ", " : "") + std::to_string(step);
    }
    return out + "]";
}

}  // namespace

std::vector<std::int64_t> checkpoint_steps_in(const SimFileSystem& fs, FsView view) {
    const std::string prefix = std::string(kOutputDir) + "/";
    std::vector<std::int64_t> steps;
    for (const auto name : fs.entry_names_in(view, kOutputDir)) {
        const auto step = checkpoint_step_of(name);
        if (step && fs.is_dir_in(view, prefix + std::string(name))) {
            steps.push_back(*step);
        }
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

std::vector<std::int64_t> visible_checkpoint_steps(const SimFileSystem& fs) {
    return checkpoint_steps_in(fs, FsView::visible);
}

void RetentionChecker::on(const LinkPublished& e) {
    publication_ = Publication{e.step, visible_checkpoint_steps(context_.fs)};
}

void RetentionChecker::check_publication(const char* where) {
    if (!publication_) {
        return;
    }
    const auto publication = std::move(*publication_);
    publication_.reset();
    // Older than the target: only the newest limit - 1 stay (none for a limit of 1 or less).
    const auto limit = context_.scenario.trainer.save_total_limit;
    const auto keep_older = static_cast<std::size_t>(limit > 1 ? limit - 1 : 0);
    std::vector<std::int64_t> older;
    std::vector<std::int64_t> expected;
    for (const auto step : publication.before) {
        (step < publication.target ? older : expected).push_back(step);
    }
    const auto dropped = older.size() > keep_older ? older.size() - keep_older : 0;
    expected.insert(expected.end(), older.begin() + static_cast<std::ptrdiff_t>(dropped), older.end());
    std::sort(expected.begin(), expected.end());
    const auto kept = visible_checkpoint_steps(context_.fs);
    if (kept != expected) {
        context_.violate(Property::P1, std::string("after final_checkpoint moved to checkpoint-") +
                                           std::to_string(publication.target) + " in " + where +
                                           " with save_total_limit " + std::to_string(limit) +
                                           " the kept checkpoints are " + describe_steps(kept) + ", not " +
                                           describe_steps(expected) +
                                           " (before: " + describe_steps(publication.before) + ")");
    }
}

}  // namespace ckpt::sim
