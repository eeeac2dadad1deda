// The ledger's decision tree read back: which decision a checkpoint or the visible sidecar
// holds, which steps a history counted, and what a resume must restore. Reads the disk through
// the inspection views only and never uses the policy's own loaders or adoption rules.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/checks/ledger.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

// The policy state a node left; the fresh state for the root.
const CheckpointEvaluationState& node_state(const Ledger& ledger, int node) noexcept;

// The steps the history ending at `node` counted, sorted (a step may appear twice: a step end
// and an epoch end at one step are two save events).
std::vector<std::int64_t> counted_steps(const Ledger& ledger, int node);
// What a resume to `restored_node` knows its history counted, so that a replay of it is dropped.
// From the checkpoint's own state: the steps up to the checkpoint's. From a sidecar: every step
// of the history that wrote it, as the ledger recorded them (never what the sidecar says of
// itself), so a replayed step is counted twice only by a bug (finding 6). The one exception is
// the declared upgrade (finding 18): a state written by an incarnation before
// `upgrade_incarnation` (so in a version 1 sidecar, which names no step) and restored by one at
// or after it from a sidecar that names no step, has the steps beyond the checkpoint counted
// again, once.
struct KnownHistory {
    std::optional<std::int64_t> horizon;
    std::vector<std::int64_t> counted_steps;  // sorted, each at or before the horizon
    bool seed_sidecar = false;                // restored from a version 1 sidecar
};
KnownHistory known_history(const SimFileSystem& fs, const Ledger& ledger,
                           std::optional<std::int64_t> resume_step, int restored_node, int incarnation,
                           std::optional<int> upgrade_incarnation);

// What a resume from checkpoint-`resume_step` (none: from scratch) must restore: the newest
// record still visible that is the checkpoint's decision or a descendant of it and whose best
// checkpoint is intact, else the checkpoint's own decision (the root from scratch). A node of
// another branch whose path from the root evaluated the same steps with the same scores is the
// same history (nothing on the disk or in the rules tells them apart). Visible,
// not durable: a process kill keeps the page cache, and after a power loss the visible view is
// what survived. Nothing when the checkpoint read is not one the ledger recorded.
std::optional<int> expected_restored_node(const SimFileSystem& fs, const Ledger& ledger,
                                          std::optional<std::int64_t> resume_step);

}  // namespace ckpt::sim
