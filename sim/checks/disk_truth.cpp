// The checkers' reading of the disk: parses with nlohmann directly, never with the policy's
// code, and reads only through the inspection views.
#include "sim/checks/disk_truth.hpp"

#include <array>
#include <span>

#include "policy/output_dir/checkpoint_layout.hpp"
#include "sim/checks/json_scanner.hpp"
#include "sim/checks/top_level_fields.hpp"
#include "sim/events/job_constants.hpp"

namespace ckpt::sim {

using nlohmann::json;

std::string describe(const CheckpointEvaluationState& s) {
    const auto opt = [](const auto& value) { return value ? json(*value).dump() : std::string("null"); };
    return "{best_score=" + opt(s.best_score) + ", best_step=" + opt(s.best_step) +
           ", streak=" + std::to_string(s.lower_score_streak) +
           ", count=" + std::to_string(s.evaluation_count) +
           ", stop=" + (s.stop_requested ? "true" : "false") +
           ", external=" + (s.best_is_external ? "true" : "false") + "}";
}

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

// join_path(checkpoint_path(step), kTrainerStateName) built in one buffer, allocated once (neither
// part has a slash to drop): the crash-point checks ask for it at every passage that found a change.
std::string trainer_state_path(std::int64_t step) {
    const std::string directory = checkpoint_dir_name(step);
    const std::string_view root = kOutputDir;
    std::string path;
    path.reserve(root.size() + 1 + directory.size() + 1 + kTrainerStateName.size());
    path.append(root).append(1, '/').append(directory).append(1, '/').append(kTrainerStateName);
    return path;
}

bool checkpoint_is_complete(const SimFileSystem& fs, const Ledger& ledger, std::int64_t step) {
    const auto path = trainer_state_path(step);
    // Most checks see exactly the bytes the trainer wrote (a ledger record names global_step N);
    // comparing them is far cheaper than parsing, and this runs at every crash point passed.
    const auto record = ledger.checkpoints.find(step);
    if (record != ledger.checkpoints.end() && record->second.held_in(fs, FsView::visible, path)) {
        return true;
    }
    const auto bytes = fs.content_in(FsView::visible, path);
    if (!bytes) {
        return false;
    }
    return trainer_state_names_step(*bytes, step);
}

bool trainer_state_names_step(std::string_view bytes, std::int64_t step) {
    const auto fields = read_top_level_fields(bytes, {"global_step"});
    if (!fields) {
        return false;
    }
    const auto found = fields->find("global_step");
    return found != fields->end() && found->second.is_number_integer() &&
           found->second.get<std::int64_t>() == step;
}

bool checkpoint_has_every_shard(const SimFileSystem& fs, const Ledger& ledger, int ranks, std::int64_t step) {
    for (int rank = 0; rank < ranks; ++rank) {
        if (!fs.exists_in(FsView::visible,
                          join_path(checkpoint_path(step),
                                    ranks == 1 ? std::string("rng_state.pth")
                                               : "rng_state_" + std::to_string(rank) + ".pth"))) {
            return false;
        }
    }
    return checkpoint_is_complete(fs, ledger, step);
}

std::optional<std::int64_t> visible_link_step(const SimFileSystem& fs) {
    const auto target = fs.link_target_in(FsView::visible, join_path(kOutputDir, kFinalCheckpointLink));
    if (!target) {
        return std::nullopt;
    }
    return parse_checkpoint_step(*target);
}

bool record_intact(const SimFileSystem& fs, const Ledger& ledger, const CheckpointRecord& record) {
    if (!record.durable) {
        return false;
    }
    const auto damaged = ledger.checkpoint_damaged.find(record.step);
    if (damaged != ledger.checkpoint_damaged.end() && damaged->second) {
        return false;
    }
    return record.held_in(fs, FsView::visible, trainer_state_path(record.step));
}

// The sidecar counts when its best is intact (or external); so does every intact checkpoint.
CheckpointEvaluationState expected_floor(const SimFileSystem& fs, const Ledger& ledger) {
    CheckpointEvaluationState floor;
    for (const auto& [step, record] : ledger.checkpoints) {
        if (record_intact(fs, ledger, record) &&
            record.policy_state.evaluation_count >= floor.evaluation_count) {
            floor = record.policy_state;
        }
    }
    if (ledger.sidecar && !ledger.sidecar_damaged) {
        const auto& s = ledger.sidecar->state;
        bool usable = s.best_is_external || !s.best_step;
        if (!usable) {
            const auto record = ledger.checkpoints.find(*s.best_step);
            // The checkpoint must be the one the sidecar's best was written for, not a later
            // checkpoint with the same step from another branch of history.
            usable = record != ledger.checkpoints.end() && record_intact(fs, ledger, record->second) &&
                     record->second.score == s.best_score;
        }
        if (usable && s.evaluation_count > floor.evaluation_count) {
            floor = s;
        }
    }
    return floor;
}

namespace {

// read_state of a state mapping, from the mapping's (already validated) text alone: the six
// fields, or, when it nests a "state" member, that member's six fields, each parsed on its own
// into the value the whole document's parse would hold. No tree of the mapping is built.
std::optional<CheckpointEvaluationState> state_of_mapping(std::string_view text) {
    constexpr std::array<std::string_view, 7> kNames = {
        "best_score",       "best_step", "lower_score_streak", "evaluation_count", "stop_requested",
        "best_is_external", "state"};
    constexpr std::size_t kFields = kNames.size() - 1;
    std::array<std::string_view, kNames.size()> values;
    if (scan_json(text, kNames, values) != JsonShape::object) {
        return std::nullopt;  // read_state refuses what is not a mapping
    }
    if (!values.back().empty()) {
        const std::string_view nested = values.back();
        if (scan_json(nested, std::span(kNames).first(kFields), std::span(values).first(kFields)) !=
            JsonShape::object) {
            return std::nullopt;
        }
    }
    const auto field = [&](std::size_t i) {
        return values[i].empty() ? json() : parse_member_value(values[i]);
    };
    // read_state's rules, field by field: an absent or mistyped field keeps its default.
    CheckpointEvaluationState s;
    if (const auto v = field(0); v.is_number()) {
        s.best_score = v.get<double>();
    }
    if (const auto v = field(1); v.is_number_integer()) {
        s.best_step = v.get<std::int64_t>();
    }
    if (const auto v = field(2); v.is_number_integer()) {
        s.lower_score_streak = v.get<std::int64_t>();
    }
    if (const auto v = field(3); v.is_number_integer()) {
        s.evaluation_count = v.get<std::int64_t>();
    }
    if (const auto v = field(4); v.is_boolean()) {
        s.stop_requested = v.get<bool>();
    }
    if (const auto v = field(5); v.is_boolean()) {
        s.best_is_external = v.get<bool>();
    }
    return s;
}

}  // namespace

// The DOM of the whole sidecar cost 33 k instructions per write; only what P2 and P9 read is built,
// and of the state mapping only the state read_state would read from it.
SidecarReading read_durable_sidecar(const SimFileSystem& fs) {
    static const std::string path = join_path(kOutputDir, kSidecarName);
    return read_sidecar_bytes(fs.durable_content(path));
}

SidecarReading read_sidecar_bytes(std::optional<std::string> bytes) {
    SidecarReading sidecar;
    sidecar.bytes = std::move(bytes);
    constexpr std::array<std::string_view, 2> kMembers = {"checkpoint_eval_state", "last_evaluated_step"};
    std::array<std::string_view, kMembers.size()> values;
    if (!sidecar.bytes || scan_json(*sidecar.bytes, kMembers, values) != JsonShape::object) {
        return sidecar;
    }
    sidecar.payload = json::object();
    if (!values[1].empty()) {
        sidecar.payload["last_evaluated_step"] = parse_member_value(values[1]);
    }
    if (!values[0].empty()) {
        sidecar.has_policy_state = true;
        sidecar.state = state_of_mapping(values[0]);
    }
    return sidecar;
}

// The layout is a valid object whose state mapping holds the six fields of `state`: a finite
// best in the shortest digits that parse back to it, integers and booleans as written.
SidecarReading reading_of_laid_out_sidecar(std::string bytes, const PolicySettings& settings,
                                           const CheckpointEvaluationState& state, std::int64_t step,
                                           int version) {
    SidecarReading sidecar;
    sidecar.bytes = std::move(bytes);
    sidecar.payload = json::object();
    if (version != 1) {  // the seed's own document has no step; json::parse reads it unsigned
        sidecar.payload["last_evaluated_step"] =
            step >= 0 ? json(static_cast<std::uint64_t>(step)) : json(step);
    }
    sidecar.has_policy_state = true;
    sidecar.state = state;
    sidecar.laid_out = SidecarReading::Layout{settings, step, version};
    return sidecar;
}

}  // namespace ckpt::sim
