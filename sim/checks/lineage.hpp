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
// What a resume to `restored_node` knows its history counted, so that a replay of it is dropped:
// the steps up to the sidecar's last_evaluated_step when the state came from a sidecar naming one,
// else up to the checkpoint's step. A version 1 sidecar (the seed's, written before an upgrade)
// names none, so the steps it holds beyond the checkpoint are counted again (trigger_callback.hpp).
struct KnownHistory {
    std::optional<std::int64_t> horizon;
    std::vector<std::int64_t> counted_steps;  // sorted, each at or before the horizon
    bool seed_sidecar = false;                // restored from a version 1 sidecar
};
KnownHistory known_history(const SimFileSystem& fs, const Ledger& ledger,
                           std::optional<std::int64_t> resume_step, int restored_node);

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
