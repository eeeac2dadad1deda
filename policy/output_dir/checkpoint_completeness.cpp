// Repeats is_complete_checkpoint's checks in order and names the first that fails; a read error
// becomes part of the reason, never an exception. Off the hot path, so it builds the JSON tree.
#include "policy/output_dir/checkpoint_completeness.hpp"

#include <nlohmann/json.hpp>

#include "policy/base/plain_json.hpp"
#include "policy/base/untrusted_json.hpp"
#include "policy/formats/trainer_state_probe.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/ports/file_system_error.hpp"

namespace ckpt {

std::string why_checkpoint_is_incomplete(FileSystem& fs, const std::string& output_dir, std::int64_t step) {
    const auto directory = join_path(output_dir, checkpoint_dir_name(step));
    if (!fs.is_dir(directory)) {
        return "the directory does not exist (deleted, or never saved)";
    }
    const auto path = join_path(directory, kTrainerStateName);
    if (!fs.exists(path)) {
        return "trainer_state.json is missing (the save was interrupted before its last write)";
    }
    std::string text;
    try {
        text = fs.read_file(path);
    } catch (const FileSystemError& error) {
        return std::string("trainer_state.json cannot be read: ") + error.what();
    }
    // Python's NaN, Infinity and -Infinity, which a logged grad_norm of nan or inf puts in the file
    // (finding 28), are read as the probe reads them: as null here, since no logged number matters.
    auto state = parse_json_or_discarded(text);
    if (state.is_discarded()) {
        try {
            state = parse_untrusted_json(text, "trainer_state.json",
                                         {.reject_duplicate_keys = false, .python_constants_as_null = true});
        } catch (const MalformedJson&) {
            return "trainer_state.json is not valid JSON (a torn write)";
        }
    }
    const auto global_step = state.is_object() ? state.find("global_step") : state.end();
    if (!state.is_object() || global_step == state.end() || !global_step->is_number_integer()) {
        return "trainer_state.json has no integer global_step";
    }
    return "trainer_state.json records global_step " + global_step->dump() + ", not " + std::to_string(step) +
           " (the directory was renamed or copied)";
}

std::optional<std::int64_t> mismatched_global_step(FileSystem& fs, const std::string& output_dir,
                                                   std::int64_t step) {
    const auto path = join_path(join_path(output_dir, checkpoint_dir_name(step)), kTrainerStateName);
    try {
        if (!fs.exists(path)) {
            return std::nullopt;
        }
        const auto recorded = probe_global_step(fs.read_bytes(path));
        // A negative step is no step a Trainer ever counted: a damaged file, not a renamed one.
        return recorded && *recorded >= 0 && *recorded != step ? recorded : std::nullopt;
    } catch (const FileSystemError&) {
        return std::nullopt;
    }
}

}  // namespace ckpt
