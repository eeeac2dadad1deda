// The durability contract of durability_checker.hpp. Which property a lapse breaks depends on what
// the disk holds: a state the ledger decided earlier (or none) is a decision not made durable
// (P2); the right count with other contents is a decision that broke the rules (P11); bytes
// that are not the seed's layout for what they hold are P9.
#include "sim/checks/durability_checker.hpp"

#include <algorithm>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/disk_truth.hpp"
#include "sim/checks/lineage.hpp"
#include "sim/checks/sidecar_oracle_format.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

void DurabilityChecker::on(const IncarnationBegan& e) {
    sidecar_version_ = sidecar_version_written(context_.scenario.callbacks, e.incarnation);
    counted_twice_reported_ = false;
    lapse_reported_ = false;
    sidecar_at_start_ = context_.fs.durable_content(join_path(kOutputDir, kSidecarName));
    resume_step_ = e.resume_step;
}

void DurabilityChecker::on(const EvaluationScored& e) {
    const auto& counted = context_.ledger.restored_counted_steps;
    if (!counted_twice_reported_ && std::binary_search(counted.begin(), counted.end(), e.step)) {
        context_.violate(Property::P2, "step " + std::to_string(e.step) +
                                           " was counted twice: the restored history had already counted it");
        counted_twice_reported_ = true;  // once per incarnation
    }
}

void DurabilityChecker::judge_deadline(const char* when) {
    const auto& ledger = context_.ledger;
    if (ledger.sidecar_deadlines == deadlines_judged_) {
        return;  // no deadline passed at this event
    }
    deadlines_judged_ = ledger.sidecar_deadlines;
    if (ledger.prior_unknown || !ledger.last_decision) {
        return;
    }
    const auto& decision = *ledger.last_decision;
    const auto& expected = ledger.current_state;
    const auto& sidecar = ledger.sidecar_after_write;
    const auto what =
        "the " + std::string(decision.reason) + " decision at step " + std::to_string(decision.step);
    if (!sidecar.state) {
        context_.violate(Property::P2, what + " is not durable when " + when + ": the durable sidecar is " +
                                           (sidecar.bytes ? "unreadable: " + sidecar.bytes->substr(0, 60)
                                                          : std::string("missing")) +
                                           ", the ledger's state is " + describe(expected));
        return;
    }
    // The decision's write is on the disk when the count is the ledger's; an older state's own
    // last evaluated step is not the ledger's to say, so only a written decision's layout is judged.
    const bool written = sidecar.state->evaluation_count == expected.evaluation_count;
    if (written && *sidecar.state != expected) {
        context_.violate(Property::P11, what + " left " + describe(*sidecar.state) +
                                            " on the disk, the rules say " + describe(expected));
    } else if (!written && !lapse_reported_) {
        // Once per incarnation: every later deadline finds the same history missing.
        lapse_reported_ = true;
        context_.violate(Property::P2, what + " is not durable when " + when +
                                           ": the durable sidecar holds " + describe(*sidecar.state) +
                                           ", the ledger's state is " + describe(expected));
    }
    // Bytes the ledger writer recognised as this very layout need not be laid out again.
    const auto& layout = sidecar.laid_out;
    const bool laid_out_so = layout && layout->settings == context_.scenario.callbacks.policy &&
                             layout->last_evaluated_step == decision.step &&
                             layout->version == sidecar_version_;
    if (written && !laid_out_so) {
        judge_layout(*sidecar.bytes, *sidecar.state, decision.step, "sidecar");
    }
}

// P9: the bytes are exactly what the checker's own writer lays out for the state they hold (read
// by the checker's own reader) and the last evaluated step the ledger knows.
void DurabilityChecker::judge_layout(const std::string& bytes, const CheckpointEvaluationState& state,
                                     std::optional<std::int64_t> last_evaluated_step, const char* what) {
    const auto expected =
        oracle_sidecar_text(context_.scenario.callbacks.policy, state, last_evaluated_step, sidecar_version_);
    if (bytes != expected) {
        context_.violate(Property::P9, std::string(what) + " bytes are not the seed's layout for " +
                                           describe(state) + ": " + first_line_difference(bytes, expected));
    }
}

// Whether the running incarnation restored `node` from the sidecar it found, and that sidecar named
// the step of its decision: the checkpoint's own decision is another node, and the sidecar's bytes
// carry a last_evaluated_step (a version 1 sidecar, or one an upgrade rewrote, carries none).
bool DurabilityChecker::restored_from_a_stepped_sidecar(int node) const {
    const auto& checkpoints = context_.ledger.checkpoints;
    const auto record = resume_step_ ? checkpoints.find(*resume_step_) : checkpoints.end();
    if (record != checkpoints.end() && record->second.node == node) {
        return false;
    }
    const auto found = read_sidecar_bytes(sidecar_at_start_);
    const auto step =
        found.payload.is_object() ? found.payload.find("last_evaluated_step") : found.payload.end();
    return found.state && step != found.payload.end() && step->is_number_integer();
}

// Recovery may rewrite the sidecar before on_train_begin returns; what it writes is the state the
// resume must restore, with the step of the decision that left it or, when the restore came from
// a checkpoint's own state (which does not carry it), null: a resume from checkpoint-N replays
// no step its own history counted, so an unknown step skips nothing that was counted. A restore
// from a sidecar that named its step (a descendant of the checkpoint's decision) must keep it: a
// null there would make the next resume evaluate again the lower scores that sidecar counted.
void DurabilityChecker::on(const RecoveryFinished&) {
    const auto& ledger = context_.ledger;
    const auto bytes = context_.fs.durable_content(join_path(kOutputDir, kSidecarName));
    if (!bytes || bytes == sidecar_at_start_ || ledger.prior_unknown) {
        return;
    }
    const auto reading = read_durable_sidecar(context_.fs);
    if (!reading.state) {
        context_.violate(Property::P2, "on_train_begin's recovery left an unreadable durable sidecar: " +
                                           bytes->substr(0, 60));
        return;
    }
    if (*reading.state != ledger.expected_state) {
        context_.violate(Property::P2, "on_train_begin's recovery wrote " + describe(*reading.state) +
                                           " into the sidecar, but the resume must restore " +
                                           describe(ledger.expected_state));
    }
    const int node = ledger.expected_node.value_or(kRootNode);
    const auto step =
        node == kRootNode
            ? std::nullopt
            : std::optional<std::int64_t>(ledger.evaluations[static_cast<std::size_t>(node)].step);
    const auto& settings = context_.scenario.callbacks.policy;
    if (step && *bytes == oracle_sidecar_text(settings, *reading.state, step, sidecar_version_)) {
        return;
    }
    if (step && restored_from_a_stepped_sidecar(node)) {
        judge_layout(*bytes, *reading.state, step,
                     "recovery's sidecar (restored from a sidecar naming its step)");
        return;
    }
    judge_layout(*bytes, *reading.state, std::nullopt, "recovery's sidecar");
}

}  // namespace ckpt::sim
