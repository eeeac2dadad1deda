// `ckptsim mutants --callback-command CMD --callback-mutants FILE`: the kill table of hand-made
// bugs in an external Python callback (sim/explore/callback_mutants.hpp), with each killing
// seed saved as a scenario file that runs the mutated copy. Exit 0 when every mutant is killed,
// 1 when one survives, 2 for bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/external/callback_spec.hpp"

namespace ckpt::cli {

struct CallbackMutantsCommand {
    sim::CallbackSpec callback;
    std::string mutants_file;
    std::uint64_t seeds = 20;
    unsigned jobs = 1;
    std::vector<std::string> only;
    std::string out_dir;
    bool json = false;
};

int run_callback_mutants_command(const CallbackMutantsCommand& command);

}  // namespace ckpt::cli
