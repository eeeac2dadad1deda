// The crash points: the named places in the trainer and the callback where the simulator can
// crash a process, with their one name table. Scenario files, traces, coverage reports and
// per-point counters all index by it. Depends on sim/base only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/base/enum_names.hpp"

namespace ckpt::sim {

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

inline constexpr auto kCrashPointNames = make_enum_names<CrashPoint>({
    {CrashPoint::step_end, "step_end"},
    {CrashPoint::after_evaluation, "after_evaluation"},
    {CrashPoint::inside_checkpoint_write, "inside_checkpoint_write"},
    {CrashPoint::inside_trainer_state_write, "inside_trainer_state_write"},
    {CrashPoint::before_checkpoint_fsync, "before_checkpoint_fsync"},
    {CrashPoint::during_rotation, "during_rotation"},
    {CrashPoint::after_checkpoint_write, "after_checkpoint_write"},
    {CrashPoint::inside_link_update, "inside_link_update"},
    {CrashPoint::between_link_and_sidecar, "between_link_and_sidecar"},
    {CrashPoint::inside_sidecar_write, "inside_sidecar_write"},
    {CrashPoint::after_on_save, "after_on_save"},
});
static_assert(kCrashPointNames.complete());
inline constexpr std::size_t kCrashPointCount = kCrashPointNames.size();

constexpr std::string_view to_string(CrashPoint point) noexcept {
    return kCrashPointNames.name(point);
}

constexpr std::optional<CrashPoint> parse_crash_point(std::string_view name) noexcept {
    return kCrashPointNames.parse(name);
}

}  // namespace ckpt::sim
