// The FileSystem port's contract (policy/tests/ports/file_system_contract.hpp) run on
// SimFileSystem, so the simulated disk behaves as POSIX does for every call the production code
// makes. Its crash model has its own tests beside this one.
#include <string>

#include <gtest/gtest.h>

#include "policy/ports/file_system.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::testing {

struct SimDiskBackend {
    sim::SimFileSystem fs;
    std::string root = "/scratch/run";
    // A known divergence: SimFileSystem's rename errors name one path, POSIX's name both. Fixing
    // it changes the simulator's error messages, which waits for a change of its own.
    static constexpr const char* kRenameErrorNamesOnlySource =
        "SimFileSystem's rename errors name only one path (a known divergence from POSIX)";

    SimDiskBackend() { make_dirs(fs, root); }
};

struct SimDiskBackendName {
    template <typename Backend>
    static std::string GetName(int) {
        return "Sim";
    }
};

using ContractBackends = ::testing::Types<SimDiskBackend>;
using ContractBackendNames = SimDiskBackendName;

}  // namespace ckpt::testing

#include "policy/tests/ports/file_system_contract.hpp"
