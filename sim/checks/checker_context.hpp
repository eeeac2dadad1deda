// What every checker reads (the scenario, the disk, the ledger, the world's save window) and
// the one place it writes: the violation log. Checkers never write the ledger or the disk.
#pragma once

#include "sim/checks/ledger.hpp"
#include "sim/checks/violation_log.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/save_window.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckpt::sim {

struct CheckerContext {
    const Scenario& scenario;
    const SimFileSystem& fs;
    const Ledger& ledger;
    const SaveWindow& save_window;
    ViolationLog& violations;

    void violate(Property property, std::string message) const {
        violations.report(property, std::move(message));
    }
};

}  // namespace ckpt::sim
