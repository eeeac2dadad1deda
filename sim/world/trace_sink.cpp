// The trace lines the events stand for, with exactly the fields the run's trace has always
// had (nlohmann sorts keys, so the order of fields here does not matter).
#include "sim/world/trace_sink.hpp"

namespace ckpt::sim {

using nlohmann::json;

void TraceSink::on(const IncarnationBegan& e) {
    record(-1, "start", {{"ranks", e.ranks}, {"resume_step", e.resume_step ? json(*e.resume_step) : json()}});
}

void TraceSink::on(const ResumeSourceChosen& e) {
    record(-1, "resume", {{"checkpoint", e.name}, {"complete", e.complete}});
}

namespace {

// The policy state as the readable trace shows it: best, streak, evaluations, stop.
json state_json(const CheckpointEvaluationState& s) {
    return {{"best_score", s.best_score ? json(*s.best_score) : json()},
            {"best_step", s.best_step ? json(*s.best_step) : json()},
            {"best_is_external", s.best_is_external},
            {"streak", s.lower_score_streak},
            {"evaluations", s.evaluation_count},
            {"stop_requested", s.stop_requested}};
}

// The evaluation count a stored callback state holds, wherever its exporter nested it.
std::optional<std::int64_t> find_evaluation_count(const json& j) {
    if (j.is_object()) {
        if (const auto it = j.find("evaluation_count"); it != j.end() && it->is_number_integer()) {
            return it->get<std::int64_t>();
        }
    }
    if (j.is_structured()) {
        for (const auto& child : j) {
            if (auto found = find_evaluation_count(child)) {
                return found;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

void TraceSink::on(const CallbacksRestored& e) {
    checkpoint_evaluations_ = find_evaluation_count(e.restored_states);
}

// "source": fresh (no resume), checkpoint (the resume checkpoint's trainer_state.json) or
// sidecar (the sidecar's newer state was adopted over it).
void TraceSink::on(const TrainBegan& e) {
    const char* source = "fresh";
    if (e.resumed) {
        source =
            checkpoint_evaluations_.value_or(0) == e.restored.evaluation_count ? "checkpoint" : "sidecar";
    }
    record(0, "restored", {{"source", source}, {"state", state_json(e.restored)}});
    checkpoint_evaluations_.reset();
}

void TraceSink::on(const SidecarPersisted& e) {
    record(0, "sidecar", {{"evaluations", e.state.evaluation_count}});
}

void TraceSink::on(const DecisionMade& e) {
    record(0, "evaluation",
           {{"step", e.step},
            {"score", e.score},
            {"reason", to_string(e.decision.reason)},
            {"streak", e.decision.lower_score_streak},
            {"stop", e.decision.should_stop},
            {"state", state_json(e.after)}});
}

void TraceSink::on(const CheckpointStarted& e) {
    record(0, "checkpoint", {{"step", e.step}});
}

void TraceSink::on(const Committed& e) {
    record(0, "commit", {{"step", e.step}});
}

void TraceSink::on(const LinkPublished& e) {
    record(0, "link", {{"target", e.target}});
}

void TraceSink::on(const CrashInjected& e) {
    if (e.scope == CrashScope::rank) {
        record(e.rank, "crash", {{"point", to_string(e.point)}, {"scope", "rank"}});
    } else {
        record(0, "crash", {{"point", to_string(e.point)}, {"scope", "job"}, {"crash_kind", e.label}});
    }
}

void TraceSink::on(const RankDeathInjected& e) {
    if (e.mid_broadcast) {
        record(e.rank, "rank_death", {{"mid_broadcast", true}});
    } else {
        record(e.rank, "rank_death");
    }
}

void TraceSink::on(const SidecarCorrupted& e) {
    record(-1, "corrupt", {{"path", e.path}});
}

void TraceSink::on(const CheckpointCorrupted& e) {
    record(-1, "corrupt", {{"checkpoint", e.step}});
}

void TraceSink::on(const Preempted& e) {
    record(-1, "preemption", {{"after", e.after}});
}

void TraceSink::on(const IoErrorInjected& e) {
    record(0, "io_error", {{"target", to_string(e.target)}, {"path", e.path}});
}

void TraceSink::on(const BestModelLoading& e) {
    record(0, "best_model_loading", {{"step", e.step}, {"found", e.found}});
}

}  // namespace ckpt::sim
