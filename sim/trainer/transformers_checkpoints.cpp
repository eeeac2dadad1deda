// Transformers' checkpoint names and listings over the FileSystem port.
#include "sim/trainer/transformers_checkpoints.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ckpt::sim::transformers {
namespace {

constexpr std::string_view kPrefix = "checkpoint-";  // PREFIX_CHECKPOINT_DIR + "-"

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

// The value of a run of decimal digits, or nullopt when it is empty or overflows.
std::optional<std::int64_t> decimal_value(std::string_view digits) {
    if (digits.empty()) {
        return std::nullopt;
    }
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    std::int64_t value = 0;
    for (const char c : digits) {
        const auto digit = static_cast<std::int64_t>(c - '0');
        if (value > (kMax - digit) / 10) {
            return std::nullopt;
        }
        value = value * 10 + digit;
    }
    return value;
}

}  // namespace

std::string checkpoint_folder(std::int64_t step) {
    return std::string(kPrefix) + std::to_string(step);
}

std::string checkpoint_path(std::string_view output_dir, std::int64_t step) {
    return join_path(output_dir, checkpoint_folder(step));
}

std::optional<std::int64_t> checkpoint_step(std::string_view name) {
    if (!name.starts_with(kPrefix)) {
        return std::nullopt;
    }
    const auto digits = name.substr(kPrefix.size());
    if (!std::all_of(digits.begin(), digits.end(), is_digit)) {
        return std::nullopt;
    }
    return decimal_value(digits);
}

std::optional<Checkpoint> get_last_checkpoint(FileSystem& fs, const std::string& folder) {
    std::optional<Checkpoint> last;
    for (auto& name : fs.list_dir(folder)) {
        const auto step = checkpoint_step(name);
        // max() keeps the first of equal keys, so a later tie does not replace it.
        if (step && (!last || *step > last->step) && fs.is_dir(join_path(folder, name))) {
            last = Checkpoint{std::move(name), *step};
        }
    }
    return last;
}

std::vector<Checkpoint> checkpoints_by_step(FileSystem& fs, const std::string& output_dir) {
    std::vector<Checkpoint> found;
    if (!fs.is_dir(output_dir)) {
        return found;
    }
    for (auto& name : fs.list_dir(output_dir)) {
        if (!name.starts_with(kPrefix)) {
            continue;  // outside the glob
        }
        // re.match(".*checkpoint-([0-9]+)", path): the greedy prefix takes the last
        // "checkpoint-" a digit follows, and the group that digit's run.
        std::string_view digits;
        for (auto at = name.rfind(kPrefix); at != std::string::npos && digits.empty();
             at = at == 0 ? std::string::npos : name.rfind(kPrefix, at - 1)) {
            const auto rest = std::string_view(name).substr(at + kPrefix.size());
            digits = rest.substr(0, static_cast<std::size_t>(
                                        std::find_if_not(rest.begin(), rest.end(), is_digit) - rest.begin()));
        }
        const auto step = decimal_value(digits);
        if (step && fs.is_dir(join_path(output_dir, name))) {
            found.push_back({std::move(name), *step});
        }
    }
    std::sort(found.begin(), found.end(), [](const Checkpoint& a, const Checkpoint& b) {
        return std::tie(a.step, a.name) < std::tie(b.step, b.name);
    });
    return found;
}

}  // namespace ckpt::sim::transformers
