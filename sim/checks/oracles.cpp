#include "sim/checks/oracles.hpp"

#include <algorithm>
#include <numeric>

#include "policy/core/checkpoint_evaluation_policy.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/reference_policy.hpp"
#include "sim/trainer/job_context.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

std::string describe(const CheckpointEvaluationState& s) {
    const auto opt = [](const auto& value) { return value ? json(*value).dump() : std::string("null"); };
    return "{best_score=" + opt(s.best_score) + ", best_step=" + opt(s.best_step) +
           ", streak=" + std::to_string(s.lower_score_streak) +
           ", count=" + std::to_string(s.evaluation_count) +
           ", stop=" + (s.stop_requested ? "true" : "false") +
           ", external=" + (s.best_is_external ? "true" : "false") + "}";
}

// Reads the seed's state mapping without the policy's own parser: the oracle must not share
// the code it checks. Returns nothing when the mapping is not a well-formed state.
std::optional<CheckpointEvaluationState> read_state(const json& mapping) {
    if (!mapping.is_object()) {
        return std::nullopt;
    }
    const auto nested = mapping.find("state");
    const json& raw = nested != mapping.end() ? *nested : mapping;
    if (!raw.is_object()) {
        return std::nullopt;
    }
    CheckpointEvaluationState s;
    const auto number = [&](const char* key) -> std::optional<json> {
        const auto found = raw.find(key);
        return found == raw.end() ? std::nullopt : std::optional<json>(*found);
    };
    if (auto v = number("best_score"); v && v->is_number()) {
        s.best_score = v->get<double>();
    }
    if (auto v = number("best_step"); v && v->is_number_integer()) {
        s.best_step = v->get<std::int64_t>();
    }
    if (auto v = number("lower_score_streak"); v && v->is_number_integer()) {
        s.lower_score_streak = v->get<std::int64_t>();
    }
    if (auto v = number("evaluation_count"); v && v->is_number_integer()) {
        s.evaluation_count = v->get<std::int64_t>();
    }
    if (auto v = number("stop_requested"); v && v->is_boolean()) {
        s.stop_requested = v->get<bool>();
    }
    if (auto v = number("best_is_external"); v && v->is_boolean()) {
        s.best_is_external = v->get<bool>();
    }
    return s;
}

std::string checkpoint_path(std::int64_t step) {
    return join_path(kOutputDir, checkpoint_dir_name(step));
}

}  // namespace

Oracles::Oracles(const Scenario& scenario, SimFileSystem& fs, Ledger& ledger)
    : scenario_(scenario), fs_(fs), ledger_(ledger) {}

void Oracles::violate(Property property, std::string message) {
    if (job_ != nullptr) {
        job_->record(-1, "violation", {{"property", id_of(property)}, {"message", message}});
    }
    violations_.push_back({property, std::move(message)});
}

bool Oracles::violated(Property property) const noexcept {
    return std::any_of(violations_.begin(), violations_.end(),
                       [&](const Violation& v) { return v.property == property; });
}

void Oracles::begin_incarnation(int world_size) {
    settle_link();
    stop_in_force_.assign(static_cast<std::size_t>(world_size), false);
    agreement_.clear();
    link_checked_at_ops_ = UINT64_MAX;
    // P3: a stop that is durable binds the new incarnation from its first step.
    if (expected_floor().stop_requested) {
        stop_in_force_.assign(static_cast<std::size_t>(world_size), true);
    }
}

// ---- completeness, as the oracle sees it ---------------------------------------------------

bool Oracles::checkpoint_is_complete(std::int64_t step) const {
    const auto path = join_path(checkpoint_path(step), kTrainerStateName);
    // Most checks see exactly the bytes the trainer wrote (a ledger record names global_step N);
    // comparing them is far cheaper than parsing, and this runs at every crash point passed.
    const auto record = ledger_.checkpoints.find(step);
    if (record != ledger_.checkpoints.end() &&
        fs_.content_equals(FsView::visible, path, record->second.trainer_state_bytes)) {
        return true;
    }
    const auto bytes = fs_.content_in(FsView::visible, path);
    if (!bytes) {
        return false;
    }
    const auto state = json::parse(*bytes, nullptr, false);
    return state.is_object() && state.contains("global_step") && state["global_step"].is_number_integer() &&
           state["global_step"].get<std::int64_t>() == step;
}

bool Oracles::checkpoint_has_every_shard(std::int64_t step) const {
    for (int rank = 0; rank < scenario_.ranks; ++rank) {
        if (!fs_.exists_in(FsView::visible,
                           join_path(checkpoint_path(step), "rng_state_" + std::to_string(rank) + ".pth"))) {
            return false;
        }
    }
    return checkpoint_is_complete(step);
}

std::optional<std::int64_t> Oracles::visible_link_step() const {
    const auto target = fs_.link_target_in(FsView::visible, join_path(kOutputDir, kFinalCheckpointLink));
    if (!target) {
        return std::nullopt;
    }
    return parse_checkpoint_step(*target);
}

bool Oracles::record_intact(const CheckpointRecord& record) const {
    if (!record.durable) {
        return false;
    }
    const auto damaged = ledger_.checkpoint_damaged.find(record.step);
    if (damaged != ledger_.checkpoint_damaged.end() && damaged->second) {
        return false;
    }
    return fs_.content_equals(FsView::visible, join_path(checkpoint_path(record.step), kTrainerStateName),
                              record.trainer_state_bytes);
}

// The newest durably recorded decision that is still usable: the sidecar when its best is
// intact (or external), and every intact checkpoint.
CheckpointEvaluationState Oracles::expected_floor() const {
    CheckpointEvaluationState floor;
    for (const auto& [step, record] : ledger_.checkpoints) {
        if (record_intact(record) && record.policy_state.evaluation_count >= floor.evaluation_count) {
            floor = record.policy_state;
        }
    }
    if (ledger_.sidecar && !ledger_.sidecar_damaged) {
        const auto& s = ledger_.sidecar->state;
        bool usable = s.best_is_external || !s.best_step;
        if (!usable) {
            const auto record = ledger_.checkpoints.find(*s.best_step);
            // The checkpoint must be the one the sidecar's best was written for, not a later
            // checkpoint with the same step from another branch of history.
            usable = record != ledger_.checkpoints.end() && record_intact(record->second) &&
                     record->second.score == s.best_score;
        }
        if (usable && s.evaluation_count > floor.evaluation_count) {
            floor = s;
        }
    }
    return floor;
}

// ---- decisions and steps ------------------------------------------------------------------

void Oracles::on_decision(const CheckpointEvaluationState& prior, std::int64_t step, double score,
                          const CheckpointEvaluationDecision& decision,
                          const CheckpointEvaluationState& after) {
    const auto expected = reference_observe(scenario_.policy, prior, score, step);
    if (to_string(decision.reason) != expected.reason || decision.should_save != expected.should_save ||
        decision.should_stop != expected.should_stop || after != expected.after) {
        violate(Property::P11, "at step " + std::to_string(step) + " score " + json(score).dump() + " from " +
                                   describe(prior) + " the policy decided " +
                                   std::string(to_string(decision.reason)) + " -> " + describe(after) +
                                   ", the rules say " + std::string(expected.reason) + " -> " +
                                   describe(expected.after));
    }
    ledger_.evaluations.push_back({job_ != nullptr ? job_->incarnation : 0, step, score, decision});
    if (std::find(ledger_.decided_states.begin(), ledger_.decided_states.end(), after) ==
        ledger_.decided_states.end()) {
        ledger_.decided_states.push_back(after);
    }
}

void Oracles::on_optimizer_step(int rank) {
    if (stop_in_force_[static_cast<std::size_t>(rank)]) {
        stop_in_force_[static_cast<std::size_t>(rank)] = false;  // report once per rank
        violate(Property::P3, "rank " + std::to_string(rank) + " took an optimizer step after a stop");
    }
}

void Oracles::on_evaluation_start(int rank) {
    if (stop_in_force_[static_cast<std::size_t>(rank)]) {
        stop_in_force_[static_cast<std::size_t>(rank)] = false;
        violate(Property::P3, "rank " + std::to_string(rank) + " started an evaluation after a stop");
    }
}

void Oracles::on_stop_in_force(int rank) noexcept {
    stop_in_force_[static_cast<std::size_t>(rank)] = true;
}

void Oracles::on_rank_state(int rank, std::uint64_t sequence, const CheckpointEvaluationState& policy_state) {
    const auto found = std::find_if(agreement_.begin(), agreement_.end(),
                                    [&](const auto& entry) { return entry.first == sequence; });
    if (found == agreement_.end()) {
        agreement_.emplace_back(sequence, policy_state);
        return;
    }
    if (found->second != policy_state) {
        violate(Property::P7, "after collective #" + std::to_string(sequence) + " rank " +
                                  std::to_string(rank) + " holds " + describe(policy_state) +
                                  " but another rank holds " + describe(found->second));
    }
}

// ---- writes ---------------------------------------------------------------------------------

void Oracles::after_sidecar_write(const CheckpointEvaluationState& state) {
    const auto sidecar = join_path(kOutputDir, kSidecarName);
    const auto bytes = fs_.durable_content(sidecar);
    const auto payload = bytes ? json::parse(*bytes, nullptr, false) : json();
    const auto policy_state = payload.is_object() ? payload.find("checkpoint_eval_state") : payload.end();
    if (!payload.is_object() || policy_state == payload.end()) {
        violate(Property::P2, "persist returned but the durable sidecar is " +
                                  (bytes ? "unreadable: " + bytes->substr(0, 60) : std::string("missing")));
        return;
    }
    const auto durable = read_state(*policy_state);
    if (!durable || *durable != state) {
        violate(Property::P2, "persist returned with " + describe(state) + " but the durable sidecar holds " +
                                  (durable ? describe(*durable) : std::string("no state")));
        return;
    }
    // P9: the bytes on disk load into a policy that writes the same mapping back.
    try {
        const auto reloaded = CheckpointEvaluationPolicy::from_state_dict(*policy_state).state_dict();
        if (reloaded != *policy_state) {
            violate(Property::P9,
                    "sidecar state does not round-trip: " + policy_state->dump() + " vs " + reloaded.dump());
        }
    } catch (const std::exception& error) {
        violate(Property::P9, std::string("sidecar state does not load: ") + error.what());
    }
    ledger_.sidecar = SidecarRecord{state, *bytes};
    ledger_.sidecar_damaged = false;
}

void Oracles::after_recovery() {
    const auto bytes = fs_.durable_content(join_path(kOutputDir, kSidecarName));
    if (!bytes || (ledger_.sidecar && ledger_.sidecar->bytes == *bytes)) {
        return;
    }
    const auto payload = json::parse(*bytes, nullptr, false);
    if (const auto state =
            payload.is_object() ? read_state(payload.value("checkpoint_eval_state", json())) : std::nullopt) {
        ledger_.sidecar = SidecarRecord{*state, *bytes};
        ledger_.sidecar_damaged = false;
    }
}

void Oracles::after_checkpoint_write(CheckpointRecord record) {
    const auto path = join_path(checkpoint_path(record.step), kTrainerStateName);
    record.durable = fs_.content_equals(FsView::durable, path, record.trainer_state_bytes);
    ledger_.checkpoint_damaged.erase(record.step);
    ledger_.checkpoints[record.step] = std::move(record);
}

// ---- the link -------------------------------------------------------------------------------

void Oracles::on_link_publish(std::int64_t step) {
    settle_link();
    const auto record = ledger_.checkpoints.find(step);
    if (record == ledger_.checkpoints.end()) {
        violate(Property::P4, "final_checkpoint published to checkpoint-" + std::to_string(step) +
                                  ", which was never written");
        return;
    }
    // on_save publishes after its barrier, so every rank's files must be there. Recovery in
    // on_train_begin may publish a checkpoint a crashed rank never finished: complete (its
    // trainer_state.json is whole) is all the seed's design promises there.
    const bool committing = job_ != nullptr && job_->in_on_save;
    if (committing ? !checkpoint_has_every_shard(step) : !checkpoint_is_complete(step)) {
        violate(Property::P4, "final_checkpoint published to checkpoint-" + std::to_string(step) +
                                  " before " +
                                  (committing ? "every rank finished writing it" : "it was complete"));
    }
    if (ledger_.link_step && *ledger_.link_step != step) {
        if (!ledger_.link_target_damaged && !(record->second.score > ledger_.link_score)) {
            violate(Property::P1,
                    "final_checkpoint moved from checkpoint-" + std::to_string(*ledger_.link_step) +
                        " (score " + json(ledger_.link_score).dump() + ") to checkpoint-" +
                        std::to_string(step) + " (score " + json(record->second.score).dump() + ")");
        }
    }
    ledger_.pending_link = std::make_pair(step, record->second.score);
}

void Oracles::settle_link() {
    if (!ledger_.pending_link) {
        return;
    }
    const auto [step, score] = *ledger_.pending_link;
    ledger_.pending_link.reset();
    if (visible_link_step() == step) {
        ledger_.link_step = step;
        ledger_.link_score = score;
        ledger_.link_target_damaged = false;
    }
}

void Oracles::at_crash_point(CrashPoint /*point*/) {
    settle_link();
    // Re-check only when the disk changed since the last check: most passages are plain steps.
    const auto& ops = fs_.stats().operations;
    const auto changes = std::accumulate(ops.begin(), ops.end(), std::uint64_t{0});
    const bool fresh = changes != link_checked_at_ops_;
    if (fresh) {
        link_checked_at_ops_ = changes;
        const auto step = visible_link_step();
        const bool link_present =
            fs_.link_target_in(FsView::visible, join_path(kOutputDir, kFinalCheckpointLink)).has_value();
        link_check_was_ok_ = !link_present || (step && checkpoint_is_complete(*step));
        link_checked_step_ = step;
    }
    // A target an injected fault destroyed is excused until the next publication, and is not the
    // save window's doing either, so it is neither a violation nor counted as exposure.
    if (link_check_was_ok_ || ledger_.link_target_damaged) {
        return;
    }
    if (job_ != nullptr && job_->in_save_window) {
        job_->stats.save_window_dangling += 1;  // the seed's known exposure, measured not failed
        return;
    }
    if (!fresh) {
        return;  // already reported for this state of the disk
    }
    violate(Property::P4, "final_checkpoint names " +
                              (link_checked_step_ ? "checkpoint-" + std::to_string(*link_checked_step_)
                                                  : std::string("a non-checkpoint")) +
                              ", which is not complete, outside the save window");
}

// ---- resume ---------------------------------------------------------------------------------

void Oracles::on_resume_source(std::int64_t step, bool complete) {
    if (!complete && scenario_.resume_rule == ResumeRule::fixed) {
        violate(Property::P5,
                "the job resumed from checkpoint-" + std::to_string(step) + ", which is not complete");
    }
}

void Oracles::after_callback_restore(std::int64_t step, const json& restored_states,
                                     const std::vector<std::string>& warnings) {
    const auto record = ledger_.checkpoints.find(step);
    if (record == ledger_.checkpoints.end() || !record_intact(record->second)) {
        return;
    }
    if (restored_states != record->second.callback_states) {
        violate(Property::P10, "callbacks restored from checkpoint-" + std::to_string(step) + " as " +
                                   restored_states.dump() + " but held " +
                                   record->second.callback_states.dump() + " when it was written");
    }
    if (!warnings.empty()) {
        violate(Property::P10, "restoring an unchanged configuration warned: " + warnings.front());
    }
}

void Oracles::after_train_begin(const CheckpointEvaluationState& restored, bool resumed) {
    settle_link();
    // P3: a restored stop binds every rank from here on, whether or not the ledger already
    // counted it durable (a sidecar the page cache still held is restored too).
    if (restored.stop_requested) {
        std::fill(stop_in_force_.begin(), stop_in_force_.end(), true);
    }
    const auto floor = expected_floor();
    if (resumed || floor.evaluation_count > 0) {
        if (restored.evaluation_count < floor.evaluation_count) {
            violate(Property::P2, "resume restored " + describe(restored) +
                                      " but a later decision was durable: " + describe(floor));
        } else if (restored.evaluation_count > 0 &&
                   std::find(ledger_.decided_states.begin(), ledger_.decided_states.end(), restored) ==
                       ledger_.decided_states.end()) {
            violate(Property::P2, "resume restored " + describe(restored) +
                                      ", which is not the state after any decision of this run");
        }
    }
    if (restored.best_step && !restored.best_is_external) {
        const auto record = ledger_.checkpoints.find(*restored.best_step);
        if (!checkpoint_is_complete(*restored.best_step)) {
            violate(Property::P5, "the restored best_step " + std::to_string(*restored.best_step) +
                                      " names an incomplete checkpoint");
        } else if (record != ledger_.checkpoints.end() && record->second.score != *restored.best_score) {
            violate(Property::P5, "the restored best names checkpoint-" +
                                      std::to_string(*restored.best_step) + " with score " +
                                      json(*restored.best_score).dump() + ", but that checkpoint" +
                                      " was written for score " + json(record->second.score).dump() +
                                      " (a record from an abandoned history)");
        } else if (visible_link_step() != restored.best_step) {
            violate(Property::P4,
                    "after on_train_begin final_checkpoint does not name the retained best checkpoint-" +
                        std::to_string(*restored.best_step));
        }
    }
}

void Oracles::at_job_end(const CheckpointEvaluationState& final_state) {
    settle_link();
    if (!final_state.best_step || final_state.best_is_external) {
        return;
    }
    const auto link = visible_link_step();
    if (link != final_state.best_step) {
        violate(Property::P4, "at the end final_checkpoint names " +
                                  (link ? "checkpoint-" + std::to_string(*link) : std::string("nothing")) +
                                  ", not the retained best checkpoint-" +
                                  std::to_string(*final_state.best_step));
        return;
    }
    double best_recorded = -1e300;
    std::int64_t best_recorded_step = -1;
    for (const auto& [step, record] : ledger_.checkpoints) {
        if (record_intact(record) && record.score > best_recorded) {
            best_recorded = record.score;
            best_recorded_step = step;
        }
    }
    const auto linked = ledger_.checkpoints.find(*link);
    if (best_recorded_step >= 0 &&
        (linked == ledger_.checkpoints.end() || linked->second.score < best_recorded)) {
        violate(Property::P1, "at the end final_checkpoint names checkpoint-" + std::to_string(*link) +
                                  " but checkpoint-" + std::to_string(best_recorded_step) +
                                  " recorded a higher score " + json(best_recorded).dump());
    }
    if (scenario_.save_total_limit == 1) {
        // Through the inspection view: the oracle must not issue operations a fault could hit.
        const std::string prefix = std::string(kOutputDir) + "/";
        for (const auto& path : fs_.list_recursive(FsView::visible)) {
            if (path.rfind(prefix, 0) != 0 || path.find('/', prefix.size()) != std::string::npos) {
                continue;
            }
            const auto step = parse_checkpoint_step(std::string_view(path).substr(prefix.size()));
            if (step && *step != *link && checkpoint_is_complete(*step)) {
                violate(Property::P1, "save_total_limit is 1 but complete checkpoint-" +
                                          std::to_string(*step) + " is kept beside the best checkpoint-" +
                                          std::to_string(*link));
                break;
            }
        }
    }
}

void Oracles::after_incarnation(const RunResult& result, int dead_ranks) {
    if (result.hung() && dead_ranks == 0) {
        violate(Property::P6, "ranks hang with no dead rank: " + result.hang);
        return;
    }
    std::optional<std::string> first_error;
    bool someone_finished = false;
    for (std::size_t rank = 0; rank < result.ranks.size(); ++rank) {
        const auto& outcome = result.ranks[rank];
        if (outcome.kind == RankOutcome::Kind::finished) {
            someone_finished = true;
        }
        if (outcome.kind != RankOutcome::Kind::failed) {
            continue;
        }
        if (!first_error) {
            first_error = outcome.message;
        } else if (*first_error != outcome.message) {
            violate(Property::P6, "ranks failed with different errors: '" + *first_error + "' and rank " +
                                      std::to_string(rank) + ": '" + outcome.message + "'");
            return;
        }
    }
    if (first_error && someone_finished) {
        violate(Property::P6, "some ranks finished while others failed with: " + *first_error);
    }
}

}  // namespace ckpt::sim
