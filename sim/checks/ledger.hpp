// Ground truth about a run, outside the code under test: what the simulator observed (scores
// handed out, disk contents, writes that returned), never what the policy says of itself. The
// oracles judge the policy against it. Depends on policy/core value types only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_decision.hpp"
#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/core/checkpoint_evaluation_state.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

// Ground truth about a run, kept outside the system under test: the simulator writes it from
// what it observed (scores it handed out, files as they are on the simulated disk, calls that
// returned), never from what the policy code claims about itself.
//
// Definitions used by the oracles (also in docs/properties.md):
//  - A checkpoint is *complete* when its trainer_state.json parses and names global_step N.
//  - A decision is *durably recorded* when a write that holds it has returned and the durable
//    view of the disk (what a power loss would leave) holds it: the sidecar at the durability
//    contract's deadline for the decision (durability_checker.hpp) when it holds the ledger's
//    state, or a complete checkpoint's trainer_state.json after _save_checkpoint wrote and
//    fsynced it. A record stays durable until an injected fault damages it, or the
//    disk no longer holds the bytes that were written (rotation deleted it).
// The history of decisions is a tree across incarnations: each decision was made from the
// state of its parent (the decision the incarnation restored, or its own previous one), so a
// resume to an older checkpoint starts a new branch. kRootNode is the fresh policy state.
inline constexpr int kRootNode = -1;

// One decision: a node of the tree, its id its index in Ledger::evaluations. Only what the
// checkers read (the history's steps and scores, the state each decision left): a long run keeps
// one per evaluation.
struct EvaluationRecord {
    int parent = kRootNode;
    std::int64_t step = 0;
    double score = 0.0;
    CheckpointEvaluationState after;
    int incarnation = 0;  // the incarnation that made it
};

struct CheckpointRecord {
    std::int64_t step = 0;
    int incarnation = 0;
    double score = 0.0;                      // the evaluation that decided to save it
    CheckpointEvaluationState policy_state;  // the trigger callback's policy state when written
    // Every stateful callback's live state() when written: the trainer's export itself, shared.
    std::shared_ptr<const nlohmann::json> callback_states;
    // Exactly what was written to trainer_state.json, sharing the write's runs: a view still
    // holding those very runs holds the record's bytes without comparing them.
    FileBytes trainer_state_bytes;
    bool durable = false;  // the write returned and the durable view holds it
    int node = kRootNode;  // the decision whose state it holds
    int writer_rank = 0;   // the rank that wrote trainer_state_bytes
    // Under save_on_each_node, another node's write of the same checkpoint in the same
    // incarnation, when its bytes differ (is_world_process_zero at least): a power loss may keep
    // either whole write, or blocks of each, so a view holding either or a mix holds this record.
    FileBytes other_node_bytes;

    // Whether `view` holds exactly one of this record's writes at `path`, the trainer_state.json
    // it names.
    bool holds_whole_write_in(const SimFileSystem& fs, FsView view, std::string_view path) const {
        return fs.content_equals(view, path, trainer_state_bytes) ||
               (!other_node_bytes.empty() && fs.content_equals(view, path, other_node_bytes));
    }
    // Whether `view` holds this record at `path`: one whole write, or, when two nodes wrote it,
    // their writes interleaved as a power loss leaves them (finding 26): as long as one of them,
    // every byte the one or the other wrote at its offset, and still a complete trainer_state.json
    // (it parses and names this step). Such a file is this checkpoint and no other, but its text
    // may read as neither write does: a restore from it is judged by what it restores.
    bool held_in(const SimFileSystem& fs, FsView view, std::string_view path) const {
        return holds_whole_write_in(fs, view, path) ||
               (!other_node_bytes.empty() && holds_node_writes_interleaved_in(fs, view, path));
    }

  private:
    bool holds_node_writes_interleaved_in(const SimFileSystem& fs, FsView view, std::string_view path) const;
};

struct SidecarRecord {
    CheckpointEvaluationState state;
    std::string bytes;  // the durable bytes the write left
    int node = kRootNode;
};

// The durable sidecar as read apart: its bytes, their parse, and the policy state inside.
struct SidecarReading {
    std::optional<std::string> bytes;
    // An object holding last_evaluated_step when the bytes do; discarded when they do not parse.
    nlohmann::json payload;
    bool has_policy_state = false;  // the document is an object holding checkpoint_eval_state
    std::optional<CheckpointEvaluationState> state;  // read_state of that member
    // Set when the bytes were recognised as exactly the checkers' own layout of `state`
    // (oracle_sidecar_text with these arguments), so P9 need not lay it out a second time.
    struct Layout {
        PolicySettings settings;
        std::int64_t last_evaluated_step = 0;
        int version = 2;
    };
    std::optional<Layout> laid_out;
};

// What the rules decided for the newest evaluation the simulator scored (reference_policy.hpp,
// from the ledger's own prior state): the flags the trigger callback must hand back.
struct LedgerDecision {
    std::uint64_t round = 0;  // EvaluationScored::round
    std::int64_t step = 0;
    double score = 0.0;
    std::string_view reason;
    bool should_save = false;
    bool should_stop = false;
    CheckpointEvaluationState prior;  // the ledger's state it was decided from
};

struct Ledger {
    std::vector<EvaluationRecord> evaluations;  // indexed by node id, in the order they were made
    // The decision the running incarnation's policy state holds (set when it restored, then
    // each decision's own node).
    int current_node = kRootNode;
    // What the running incarnation should restore (lineage.hpp), judged when it began; nothing
    // when the checkpoint it resumes from is not one the ledger knows the decision of.
    std::optional<int> expected_node;
    CheckpointEvaluationState expected_state;
    // The state the running incarnation's policy must hold now: the expected restore, the
    // external baseline applied to it, then each decision's result. Never read from the policy.
    CheckpointEvaluationState current_state;
    // The running incarnation's newest decision and the one before it (a rank may still be
    // returning from it), and the step of a save it decided that no on_save has committed yet.
    std::optional<LedgerDecision> last_decision;
    std::optional<LedgerDecision> previous_decision;
    std::optional<std::int64_t> save_due_step;
    // The resume's checkpoint is not one the ledger recorded (or no longer holds its bytes), so
    // the ledger cannot say what it restores: this incarnation's decisions are not judged.
    bool prior_unknown = false;
    // The steps the history the running incarnation restored is known to have counted, sorted:
    // those up to the horizon lineage.hpp's known_history gives.
    std::vector<std::int64_t> restored_counted_steps;
    // The running incarnation restored its state from a version 1 sidecar (an upgrade).
    bool restored_from_seed_sidecar = false;
    std::map<std::int64_t, CheckpointRecord> checkpoints;
    // Checkpoints whose record was retired because no view of the disk can ever show them again
    // (LedgerWriter::retire_unreachable_checkpoints says why that is safe): only the score of the
    // evaluation that wrote each is kept, sorted by step, for a link published to one.
    std::vector<std::pair<std::int64_t, double>> retired_scores;
    std::uint64_t retirements = 0;         // records retired so far: what a checker keyed on them may drop
    std::optional<SidecarRecord> sidecar;  // the last durably recorded sidecar
    SidecarReading sidecar_after_write;    // what the durable view held at the last deadline
    std::uint64_t sidecar_deadlines = 0;   // durability deadlines passed so far (each read the sidecar)
    bool sidecar_damaged = false;          // an injected fault corrupted it since
    std::map<std::int64_t, bool> checkpoint_damaged;

    // Where final_checkpoint pointed, as last published, and the score it carried then.
    std::optional<std::int64_t> link_step;
    double link_score = 0.0;
    // An injected fault destroyed the checkpoint final_checkpoint names. Nothing in the seed's
    // design repairs a link until the next publication, so P4 excuses it until then (a new
    // checkpoint-N written meanwhile is not the one the link was published for).
    bool link_target_damaged = false;
    // A link rename the oracle saw start; it counts once the disk shows it happened (an injected
    // error can fail the rename after the oracle saw it).
    std::optional<std::pair<std::int64_t, double>> pending_link;
};

// The ledger's decision of the running incarnation's round `round`, if it still holds it.
inline const LedgerDecision* decision_of_round(const Ledger& ledger, std::uint64_t round) noexcept {
    for (const auto* decision : {&ledger.last_decision, &ledger.previous_decision}) {
        if (*decision && (*decision)->round == round) {
            return &**decision;
        }
    }
    return nullptr;
}

// The retired summary of checkpoint-`step`, or where it would go (Ledger::retired_scores is
// sorted by step). Works on the const and the mutable list alike.
template <class RetiredScores>
auto retired_score_at(RetiredScores& retired, std::int64_t step) {
    return std::lower_bound(retired.begin(), retired.end(), step,
                            [](const auto& entry, std::int64_t wanted) { return entry.first < wanted; });
}

// The score of the evaluation that wrote checkpoint-`step`, from its record or, once retired, its
// summary; nothing when the run never wrote it.
inline std::optional<double> written_score(const Ledger& ledger, std::int64_t step) {
    if (const auto record = ledger.checkpoints.find(step); record != ledger.checkpoints.end()) {
        return record->second.score;
    }
    const auto at = retired_score_at(ledger.retired_scores, step);
    return at != ledger.retired_scores.end() && at->first == step ? std::optional<double>(at->second)
                                                                  : std::nullopt;
}

}  // namespace ckpt::sim
