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

void TraceSink::on(const DecisionMade& e) {
    record(0, "evaluation",
           {{"step", e.step},
            {"score", e.score},
            {"reason", to_string(e.decision.reason)},
            {"streak", e.decision.lower_score_streak},
            {"stop", e.decision.should_stop}});
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
    record(e.rank, "rank_death");
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
