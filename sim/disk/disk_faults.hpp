// The vocabulary of disk faults: what an injected I/O error does and what a power loss keeps.
// Shared by the simulated disk, which acts on them, and the scenario, which plans them, so a
// scenario needs these enums and their names without the whole disk. Depends on sim/base only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/base/enum_names.hpp"

namespace ckpt::sim {

// A fault the injector can ask for. Failed calls report the errno below as a FileSystemError.
//  - enospc / eio: the call fails. A mutating call has no effect, except write_file, which
//    fails after its open(O_CREAT|O_TRUNC) succeeded: the file exists and is empty, as a real
//    write() that fails on its first byte leaves it.
//  - short_write: write_file writes only the first `short_write_bytes` bytes (clamped to the
//    data size) and then fails with ENOSPC, as a write() that returned less followed by a write()
//    that hit a full disk. On any other operation it is ENOSPC.
enum class FaultKind : std::uint8_t { none, enospc, eio, short_write };

inline constexpr auto kFaultKindNames = make_enum_names<FaultKind>({{FaultKind::none, "none"},
                                                                    {FaultKind::enospc, "enospc"},
                                                                    {FaultKind::eio, "eio"},
                                                                    {FaultKind::short_write, "short_write"}});
static_assert(kFaultKindNames.complete());
// The kinds that make a call fail: every one after `none`.
inline constexpr std::size_t kFirstInjectedFaultKind = static_cast<std::size_t>(FaultKind::none) + 1;

struct Fault {
    FaultKind kind = FaultKind::none;
    std::size_t short_write_bytes = 0;
};

// Which un-synced operations a power loss keeps (ALICE's three outcomes).
//  - strict: none of them.
//  - prefix: a uniformly drawn prefix of the un-synced operations, in their original order.
//  - torn: a uniformly drawn prefix of the un-synced directory operations, and each un-synced
//    file write independently lost, kept whole or torn (cut short, or its leading bytes
//    written over the old content), as writeback flushes pages out of order.
enum class PowerLossMode : std::uint8_t { strict, prefix, torn };

inline constexpr auto kPowerLossModeNames = make_enum_names<PowerLossMode>(
    {{PowerLossMode::strict, "strict"}, {PowerLossMode::prefix, "prefix"}, {PowerLossMode::torn, "torn"}});
static_assert(kPowerLossModeNames.complete());

constexpr std::string_view to_string(PowerLossMode mode) noexcept {
    return kPowerLossModeNames.name(mode);
}

}  // namespace ckpt::sim
