// The ledger's one writer: each handler records an observation of the disk or of a reported
// event; none of them checks a property.
#include "sim/checks/ledger_writer.hpp"

#include <algorithm>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

void LedgerWriter::on(const IncarnationBegan& e) {
    incarnation_ = e.incarnation;
    settle_link();
    // Judged before any rank touches the disk: what is visible now is what the resume reads.
    ledger_.expected_node = expected_restored_node(fs_, ledger_, e.resume_step);
    ledger_.expected_state = node_state(ledger_, ledger_.expected_node.value_or(kRootNode));
    ledger_.current_node = ledger_.expected_node.value_or(kRootNode);
}

// Which decision the restored state is: the expected one when it matches, else the newest
// decision that left this state (a wrong restore still continues some history), else the root.
void LedgerWriter::on(const TrainBegan& e) {
    settle_link();
    ledger_.current_node = restored_node(e.restored);
    ledger_.restored_counted_steps = counted_steps(ledger_, ledger_.current_node);
}

int LedgerWriter::restored_node(const CheckpointEvaluationState& restored) const {
    if (ledger_.expected_node && restored == ledger_.expected_state) {
        return *ledger_.expected_node;
    }
    for (int node = static_cast<int>(ledger_.evaluations.size()) - 1; node >= 0; --node) {
        if (ledger_.evaluations[static_cast<std::size_t>(node)].after == restored) {
            return node;
        }
    }
    return kRootNode;
}

void LedgerWriter::on(const DecisionMade& e) {
    ledger_.evaluations.push_back({ledger_.current_node, incarnation_, e.step, e.score, e.decision, e.after});
    ledger_.current_node = static_cast<int>(ledger_.evaluations.size()) - 1;
    // Equal states have equal evaluation counts: only those are compared, not the whole run.
    auto& decided = ledger_.decided_states;
    const auto [first, last] = decided_by_count_.equal_range(e.after.evaluation_count);
    if (std::none_of(first, last, [&](const auto& entry) { return decided[entry.second] == e.after; })) {
        decided_by_count_.emplace(e.after.evaluation_count, decided.size());
        decided.push_back(e.after);
    }
}

// Only a write whose durable bytes hold the state it returned with is durably recorded.
void LedgerWriter::on(const SidecarPersisted& e) {
    ledger_.sidecar_after_write = read_durable_sidecar(fs_);
    const auto& sidecar = ledger_.sidecar_after_write;
    if (sidecar.state && *sidecar.state == e.state) {
        ledger_.sidecar = SidecarRecord{e.state, *sidecar.bytes, ledger_.current_node};
        ledger_.sidecar_damaged = false;
    }
}

void LedgerWriter::on(const RecoveryFinished&) {
    const auto bytes = fs_.durable_content(join_path(kOutputDir, kSidecarName));
    if (!bytes || (ledger_.sidecar && ledger_.sidecar->bytes == *bytes)) {
        return;
    }
    const auto payload = nlohmann::json::parse(*bytes, nullptr, false);
    if (const auto state = payload.is_object()
                               ? read_state(payload.value("checkpoint_eval_state", nlohmann::json()))
                               : std::nullopt) {
        ledger_.sidecar = SidecarRecord{*state, *bytes, ledger_.current_node};
        ledger_.sidecar_damaged = false;
    }
}

void LedgerWriter::on(const TrainerStateWritten& e) {
    const auto path = join_path(checkpoint_path(e.step), kTrainerStateName);
    const bool durable = fs_.content_equals(FsView::durable, path, e.bytes);
    ledger_.checkpoint_damaged.erase(e.step);
    auto& record = ledger_.checkpoints[e.step];
    // The second report of one write (once fsynced) only changes durability: comparing is
    // cheaper than copying the callback states and the bytes again.
    const bool same_write =
        record.step == e.step && record.incarnation == incarnation_ && record.score == e.score &&
        record.trainer_state_bytes == e.bytes && record.policy_state == e.policy_state &&
        record.callback_states == e.callback_states && record.node == ledger_.current_node;
    if (!same_write) {
        record = CheckpointRecord{e.step,         incarnation_,        e.score,
                                  e.policy_state, e.callback_states,   std::string(e.bytes),
                                  false,          ledger_.current_node};
    }
    record.durable = durable;
}

void LedgerWriter::on(const LinkPublished& e) {
    settle_link();
    const auto record = ledger_.checkpoints.find(e.step);
    if (record != ledger_.checkpoints.end()) {
        ledger_.pending_link = std::make_pair(e.step, record->second.score);
    }
}

void LedgerWriter::on(const SidecarCorrupted&) {
    ledger_.sidecar_damaged = true;
}

void LedgerWriter::on(const CheckpointCorrupted& e) {
    ledger_.checkpoint_damaged[e.step] = true;
    if (ledger_.link_step == e.step) {
        ledger_.link_target_damaged = true;
    }
}

void LedgerWriter::settle_link() {
    if (!ledger_.pending_link) {
        return;
    }
    const auto [step, score] = *ledger_.pending_link;
    ledger_.pending_link.reset();
    if (visible_link_step(fs_) == step) {
        ledger_.link_step = step;
        ledger_.link_score = score;
        ledger_.link_target_damaged = false;
    }
}

}  // namespace ckpt::sim
