// lineage.hpp's reading of the decision tree. The walks follow parent links, so each costs the
// depth of one history; they run once per incarnation or per stop, never per event.
#include "sim/checks/lineage.hpp"

#include <algorithm>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/top_level_fields.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {
namespace {

const std::string& sidecar_path() {
    static const std::string path = join_path(kOutputDir, kSidecarName);
    return path;
}

const EvaluationRecord& at(const Ledger& ledger, int node) {
    return ledger.evaluations[static_cast<std::size_t>(node)];
}

// Two nodes are one history when their paths from the root evaluated the same steps with the
// same scores (then the rules left the same states): a branch that rewrote checkpoint-N with
// the scores the abandoned one had is indistinguishable from it, on the disk and to the rules.
bool same_history(const Ledger& ledger, int a, int b) {
    while (a != kRootNode && b != kRootNode) {
        if (a == b) {
            return true;
        }
        const auto& x = at(ledger, a);
        const auto& y = at(ledger, b);
        if (x.step != y.step || x.score != y.score || x.after != y.after) {
            return false;
        }
        a = x.parent;
        b = y.parent;
    }
    return a == b;
}

// `node` continues the history of `base`: it or one of its ancestors is that history.
bool continues(const Ledger& ledger, int node, int base) {
    if (base == kRootNode) {
        return true;
    }
    for (; node != kRootNode; node = at(ledger, node).parent) {
        if (same_history(ledger, node, base)) {
            return true;
        }
    }
    return false;
}

// The checkpoint's trainer_state.json is still the bytes the ledger saw written, undamaged (or
// two nodes' writes of it interleaved: CheckpointRecord::held_in).
const CheckpointRecord* visible_checkpoint(const SimFileSystem& fs, const Ledger& ledger, std::int64_t step) {
    const auto record = ledger.checkpoints.find(step);
    if (record == ledger.checkpoints.end()) {
        return nullptr;
    }
    const auto damaged = ledger.checkpoint_damaged.find(step);
    if (damaged != ledger.checkpoint_damaged.end() && damaged->second) {
        return nullptr;
    }
    const auto path = trainer_state_path(step);
    return record->second.held_in(fs, FsView::visible, path) ? &record->second : nullptr;
}

// The newest node continuing `base` whose state the visible sidecar holds, if its best is
// external, absent, or a visible checkpoint written on its own history.
std::optional<int> visible_sidecar_node(const SimFileSystem& fs, const Ledger& ledger, int base) {
    if (ledger.sidecar_damaged) {
        return std::nullopt;
    }
    // read_state of the parsed sidecar's checkpoint_eval_state, without building the document.
    const auto reading = read_sidecar_bytes(fs.content_in(FsView::visible, sidecar_path()));
    const auto& state = reading.state;
    if (!state) {
        return std::nullopt;
    }
    for (int node = static_cast<int>(ledger.evaluations.size()) - 1; node >= 0; --node) {
        if (at(ledger, node).after != *state || !continues(ledger, node, base)) {
            continue;
        }
        if (state->best_is_external || !state->best_step) {
            return node;
        }
        const auto* best = visible_checkpoint(fs, ledger, *state->best_step);
        if (best != nullptr && continues(ledger, node, best->node)) {
            return node;
        }
    }
    return std::nullopt;
}

}  // namespace

const CheckpointEvaluationState& node_state(const Ledger& ledger, int node) noexcept {
    static const CheckpointEvaluationState fresh;
    return node == kRootNode ? fresh : ledger.evaluations[static_cast<std::size_t>(node)].after;
}

std::vector<std::int64_t> counted_steps(const Ledger& ledger, int node) {
    std::vector<std::int64_t> steps;
    for (; node != kRootNode; node = ledger.evaluations[static_cast<std::size_t>(node)].parent) {
        steps.push_back(ledger.evaluations[static_cast<std::size_t>(node)].step);
    }
    std::sort(steps.begin(), steps.end());
    return steps;
}

KnownHistory known_history(const SimFileSystem& fs, const Ledger& ledger,
                           std::optional<std::int64_t> resume_step, int restored_node, int incarnation,
                           std::optional<int> upgrade_incarnation) {
    KnownHistory known;
    known.horizon = resume_step;
    int base = kRootNode;
    if (resume_step) {
        const auto* checkpoint = visible_checkpoint(fs, ledger, *resume_step);
        base = checkpoint != nullptr ? checkpoint->node : restored_node;
    }
    if (restored_node != base) {
        // The restored state came from the sidecar that restored_node's evaluation wrote. Two
        // members of the validated document, as its parse would give them, say only whether the
        // declared upgrade's exception applies: the step is lost when the previous release wrote
        // the state (version 1), and stays lost through a rewrite that could not know it.
        const auto& writer = ledger.evaluations[static_cast<std::size_t>(restored_node)];
        const auto bytes = fs.content_in(FsView::visible, sidecar_path());
        const auto payload =
            bytes ? read_top_level_fields(*bytes, {"last_evaluated_step", "version"}) : std::nullopt;
        bool names_step = true;
        if (payload) {
            const auto member = [&](const char* name) {
                const auto found = payload->find(name);
                return found != payload->end() ? found->second : nlohmann::json();
            };
            known.seed_sidecar = member("version") == 1;
            names_step = !known.seed_sidecar && member("last_evaluated_step").is_number_integer();
        }
        const bool across_upgrade = !names_step && upgrade_incarnation &&
                                    writer.incarnation < *upgrade_incarnation &&
                                    incarnation >= *upgrade_incarnation;
        if (!across_upgrade) {
            known.horizon = writer.step;
        }
    }
    for (const auto step : counted_steps(ledger, restored_node)) {
        if (known.horizon && step <= *known.horizon) {
            known.counted_steps.push_back(step);
        }
    }
    return known;
}

std::optional<int> expected_restored_node(const SimFileSystem& fs, const Ledger& ledger,
                                          std::optional<std::int64_t> resume_step) {
    int base = kRootNode;
    if (resume_step) {
        const auto* checkpoint = visible_checkpoint(fs, ledger, *resume_step);
        if (checkpoint == nullptr) {
            return std::nullopt;
        }
        base = checkpoint->node;
    }
    const auto sidecar = visible_sidecar_node(fs, ledger, base);
    return sidecar && !same_history(ledger, *sidecar, base) ? *sidecar : base;
}

}  // namespace ckpt::sim
