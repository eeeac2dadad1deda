#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ckpt::sim {

// The named places in the trainer and the callback where the simulator can crash a process.
// Each is also a checkpoint for the oracles: P4 is checked at every crash point that is passed,
// whether or not a crash is injected there.
enum class CrashPoint : std::uint8_t {
    step_end,                    // after an optimizer step, outside any save or evaluation
    after_evaluation,            // between an evaluation's decision and its persistence or save
    inside_checkpoint_write,     // between the files of _save_checkpoint (before trainer_state.json)
    inside_trainer_state_write,  // trainer_state.json opened (truncated) but not yet written
    before_checkpoint_fsync,     // trainer_state.json written, not yet fsynced with its directory
    during_rotation,             // between checkpoint deletions of the rotation
    after_checkpoint_write,      // native checkpoint written and rotated, on_save not yet run
    inside_link_update,          // an operation of the final_checkpoint link replacement
    between_link_and_sidecar,    // link published, sidecar not yet persisted
    inside_sidecar_write,        // an operation of the sidecar's atomic replace
    after_on_save,               // the commit finished
};
inline constexpr std::size_t kCrashPointCount = 11;

inline constexpr std::array<std::string_view, kCrashPointCount> kCrashPointNames{
    "step_end",
    "after_evaluation",
    "inside_checkpoint_write",
    "inside_trainer_state_write",
    "before_checkpoint_fsync",
    "during_rotation",
    "after_checkpoint_write",
    "inside_link_update",
    "between_link_and_sidecar",
    "inside_sidecar_write",
    "after_on_save",
};

constexpr std::string_view to_string(CrashPoint point) noexcept {
    return kCrashPointNames[static_cast<std::size_t>(point)];
}

constexpr std::optional<CrashPoint> parse_crash_point(std::string_view name) noexcept {
    for (std::size_t i = 0; i < kCrashPointCount; ++i) {
        if (kCrashPointNames[i] == name) {
            return static_cast<CrashPoint>(i);
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim
