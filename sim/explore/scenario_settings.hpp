// The configuration fields a shrink may put back to their defaults, one row per field: its name
// in the scenario file, whether a scenario has it away from a default Scenario's, and the reset.
// The step cadence (save_steps, steps_per_epoch) is not here: it belongs to the step scale.
// Depends on sim/scenario.
#pragma once

#include <span>
#include <string_view>

#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct SettingField {
    std::string_view name;
    bool (*differs)(const Scenario&);  // away from a default Scenario's value
    void (*reset)(Scenario&);          // back to it
};

// Every setting, in the scenario file's order (the buggify record last).
std::span<const SettingField> setting_fields();

}  // namespace ckpt::sim
