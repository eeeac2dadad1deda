// The layout rules. An unreadable trainer_state.json is incomplete, not an error, so a resume
// never stops on it. The commit_check_is_dir_only mutant weakens completeness here.
#include "policy/output_dir/checkpoint_layout.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/formats/trainer_state_probe.hpp"
#include "policy/ports/file_system_error.hpp"

namespace ckpt {

std::string checkpoint_dir_name(std::int64_t step) {
    return "checkpoint-" + std::to_string(step);
}

bool is_leftover_temp_name(std::string_view name) {
    return name.substr(0, kSidecarTempPrefix.size()) == kSidecarTempPrefix || name == kLinkTempName;
}

std::optional<std::int64_t> parse_checkpoint_step(std::string_view name) {
    constexpr std::string_view prefix = "checkpoint-";
    if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size()) {
        return std::nullopt;
    }
    const auto digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    std::int64_t step = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
    if (error != std::errc{} || end != digits.data() + digits.size()) {
        return std::nullopt;
    }
    return step;
}

std::vector<CheckpointEntry> list_checkpoints(FileSystem& fs, const std::string& output_dir) {
    std::vector<CheckpointEntry> found;
    if (!fs.is_dir(output_dir)) {
        return found;
    }
    for (auto& name : fs.list_dir(output_dir)) {
        if (const auto step = parse_checkpoint_step(name); step && fs.is_dir(join_path(output_dir, name))) {
            found.push_back({std::move(name), *step});
        }
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    return found;
}

bool is_complete_checkpoint(FileSystem& fs, const std::string& output_dir, std::int64_t step) {
    const auto directory = join_path(output_dir, checkpoint_dir_name(step));
    if (mutants::is_active(mutants::Mutant::commit_check_is_dir_only)) {
        return fs.is_dir(directory);
    }
    const auto state_path = join_path(directory, kTrainerStateName);
    if (!fs.exists(state_path)) {
        return false;
    }
    // Transformers writes the optimizer before trainer_state.json, unless save_only_model.
    if (mutants::is_active(mutants::Mutant::complete_checkpoint_needs_optimizer) &&
        !fs.exists(join_path(directory, "optimizer.pt"))) {
        return false;
    }
    // Unreadable (a directory in its place, EACCES) is not complete either: callers treat an
    // incomplete checkpoint as absent, never as an error that stops a resume.
    try {
        const auto bytes = fs.read_bytes(state_path);
        if (mutants::is_active(mutants::Mutant::completeness_read_capped)) {
            return probe_global_step(bytes.prefix(16 * 1024)) == step;  // a read capped for hostile files
        }
        return probe_global_step(bytes) == step;
    } catch (const FileSystemError&) {
        return false;
    }
}

bool checkpoint_records_best(FileSystem& fs, const std::string& output_dir, std::int64_t step,
                             double best_score) {
    const auto path = join_path(join_path(output_dir, checkpoint_dir_name(step)), kTrainerStateName);
    FileBytes bytes;
    try {
        bytes = fs.read_bytes(path);
    } catch (const FileSystemError&) {
        return false;
    }
    const auto saved = find_saved_trigger_callback_in_file(bytes);  // only stateful_callbacks is parsed
    if (!saved) {
        return true;
    }
    const auto recorded = saved_policy_state(saved->state);
    const auto inner = recorded.is_object() ? recorded.value("state", nlohmann::json()) : nlohmann::json();
    if (!inner.is_object() || !inner.contains("best_step") || !inner.contains("best_score")) {
        return true;
    }
    return inner["best_step"] == step && inner["best_score"].is_number() &&
           inner["best_score"].get<double>() == best_score;
}

std::optional<CheckpointEntry> last_checkpoint(FileSystem& fs, const std::string& output_dir) {
    auto all = list_checkpoints(fs, output_dir);
    if (all.empty()) {
        return std::nullopt;
    }
    return all.back();
}

std::optional<CheckpointEntry> last_complete_checkpoint(FileSystem& fs, const std::string& output_dir) {
    auto all = list_checkpoints(fs, output_dir);
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (is_complete_checkpoint(fs, output_dir, it->step)) {
            return *it;
        }
    }
    return std::nullopt;
}

}  // namespace ckpt
