// The trace lines the events stand for, with exactly the fields the run's trace has always
// had. TraceFields writes them straight to text and needs them in nlohmann's (ascending) key
// order, which is the order below.
#include "sim/world/trace_sink.hpp"

namespace ckpt::sim {

using nlohmann::json;

void TraceSink::on(const IncarnationBegan& e) {
    record(-1, "start",
           TraceFields().integer("ranks", e.ranks).integer_or_null("resume_step", e.resume_step));
}

void TraceSink::on(const ResumeSourceChosen& e) {
    record(-1, "resume", TraceFields().string("checkpoint", e.name).boolean("complete", e.complete));
}

namespace {

// The policy state as the readable trace shows it: best, streak, evaluations, stop.
TraceFields state_fields(const CheckpointEvaluationState& s) {
    TraceFields fields;
    fields.boolean("best_is_external", s.best_is_external)
        .number_or_null("best_score", s.best_score)
        .integer_or_null("best_step", s.best_step)
        .integer("evaluations", s.evaluation_count)
        .boolean("stop_requested", s.stop_requested)
        .integer("streak", s.lower_score_streak);
    return fields;
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
    record(0, "restored", TraceFields().string("source", source).object("state", state_fields(e.restored)));
    checkpoint_evaluations_.reset();
}

void TraceSink::on(const SidecarPersisted& e) {
    record(0, "sidecar", TraceFields().integer("evaluations", e.state.evaluation_count));
}

void TraceSink::on(const DecisionMade& e) {
    record(0, "evaluation",
           TraceFields()
               .string("reason", to_string(e.decision.reason))
               .number("score", e.score)
               .object("state", state_fields(e.after))
               .integer("step", e.step)
               .boolean("stop", e.decision.should_stop)
               .integer("streak", e.decision.lower_score_streak));
}

void TraceSink::on(const CheckpointStarted& e) {
    record(0, "checkpoint", TraceFields().integer("step", e.step));
}

void TraceSink::on(const Committed& e) {
    record(0, "commit", TraceFields().integer("step", e.step));
}

void TraceSink::on(const LinkPublished& e) {
    record(0, "link", TraceFields().string("target", e.target));
}

void TraceSink::on(const CrashInjected& e) {
    if (e.scope == CrashScope::rank) {
        record(e.rank, "crash", TraceFields().string("point", to_string(e.point)).string("scope", "rank"));
    } else {
        record(0, "crash",
               TraceFields()
                   .string("crash_kind", e.label)
                   .string("point", to_string(e.point))
                   .string("scope", "job"));
    }
}

void TraceSink::on(const RankDeathInjected& e) {
    if (e.mid_broadcast) {
        record(e.rank, "rank_death", TraceFields().boolean("mid_broadcast", true));
    } else {
        record(e.rank, "rank_death", TraceFields());
    }
}

void TraceSink::on(const SidecarCorrupted& e) {
    record(-1, "corrupt", TraceFields().string("path", e.path));
}

void TraceSink::on(const CheckpointCorrupted& e) {
    record(-1, "corrupt", TraceFields().integer("checkpoint", e.step));
}

void TraceSink::on(const Preempted& e) {
    record(-1, "preemption", TraceFields().string("after", e.after));
}

void TraceSink::on(const IoErrorInjected& e) {
    record(0, "io_error", TraceFields().string("path", e.path).string("target", to_string(e.target)));
}

void TraceSink::on(const BestModelLoading& e) {
    record(0, "best_model_loading", TraceFields().boolean("found", e.found).integer("step", e.step));
}

}  // namespace ckpt::sim
