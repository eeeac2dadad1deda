// The shared fixture of SimFileSystem's case-by-case tests: a file system holding a synced /out,
// a seeded Rng, and helpers to crash from the observer, inject a fault into one operation and run
// the seed's atomic-replace protocol. Test-only; depends on sim/disk.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "sim/base/rng.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim::testing {

// What the simulator throws from the observer to crash a process mid-protocol.
struct SimulatedCrash : std::runtime_error {
    SimulatedCrash() : std::runtime_error("crash") {}
};

inline int error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const FileSystemError& error) {
        return error.error_number();
    }
    return 0;
}

// Injects `fault` into every `op` and nothing into any other operation.
inline SimFileSystem::FaultInjector fault_on(FsOp op, Fault fault) {
    return [op, fault](const FsOperation& operation) { return operation.op == op ? fault : Fault{}; };
}

// The seed's sidecar protocol: write temp, fsync temp, rename over the target, fsync the parent.
inline void atomic_replace(SimFileSystem& fs, const std::string& dir, const std::string& name,
                           const std::string& data) {
    const std::string temp = dir + "/." + name + ".tmp";
    fs.write_file(temp, data);
    fs.fsync_file(temp);
    fs.rename(temp, dir + "/" + name);
    fs.fsync_dir(dir);
}

class SimFileSystemTest : public ::testing::Test {
  protected:
    SimFileSystemTest() {
        fs.mkdir("/out");
        fs.sync_all();
    }

    SimFileSystem fs;
    Rng rng{1234};
};

}  // namespace ckpt::sim::testing
