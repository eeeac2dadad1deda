#pragma once

// The two FileSystem backends that the file system contract tests and the TriggerCallback tests
// run every behaviour on, so the in-memory double cannot drift from POSIX. Each owns a fresh,
// empty directory for one test. (sim_tests runs the same contract on SimFileSystem:
// sim/tests/disk/sim_file_system_contract_test.cpp.)

#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "policy/ports/file_system.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "policy/tests/support/in_memory_file_system.hpp"
#include "policy/tests/support/temp_dir.hpp"

namespace ckpt::testing {

struct PosixBackend {
    TempDir dir{"ckptsim-policy"};
    PosixFileSystem fs;
    std::string root = dir.path();
};

struct InMemoryBackend {
    InMemoryFileSystem fs;
    std::string root = "/scratch/run";

    InMemoryBackend() { make_dirs(fs, root); }
};

struct BackendNames {
    template <typename Backend>
    static std::string GetName(int) {
        return std::is_same_v<Backend, PosixBackend> ? "Posix" : "InMemory";
    }
};

using Backends = ::testing::Types<PosixBackend, InMemoryBackend>;

}  // namespace ckpt::testing
