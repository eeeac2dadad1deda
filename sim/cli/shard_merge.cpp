// A shard file is read back field by field into an ExploreSummary (the inverse of explore_json),
// checked against the first file given, and summed with the explorer's own add_summary, so a
// merge of all N shards equals the unsharded run in every summed field.
#include "sim/cli/shard_merge.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "policy/base/untrusted_json.hpp"
#include "sim/base/version.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

struct ParsedShard {
    std::string name;
    json identity;       // ckptsim_version, scenario_format, build_id, run: equal across one run's shards
    unsigned index = 0;  // 1-based K
    unsigned count = 0;  // N
    sim::ExploreSummary summary;
    std::vector<std::string> replays;
};

// Field access that refuses, naming the file, instead of throwing nlohmann's errors.
class Fields {
  public:
    Fields(const json& object, const std::string& file, std::string where = {})
        : object_(object), file_(file), where_(std::move(where)) {
        if (!object_.is_object()) {
            refuse("is not an object");
        }
    }
    [[noreturn]] void refuse(const std::string& reason) const {
        throw ShardRefused(file_ + ": " + (where_.empty() ? "the summary" : where_) + " " + reason);
    }
    const json& at(const std::string& key) const {
        const auto found = object_.find(key);
        if (found == object_.end()) {
            refuse("has no \"" + key + "\"");
        }
        return *found;
    }
    std::uint64_t count(const std::string& key) const {
        const auto& value = at(key);
        if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
            refuse("field \"" + key + "\" is not a non-negative integer");
        }
        return value.get<std::uint64_t>();
    }
    Fields object(const std::string& key) const { return Fields(at(key), file_, "\"" + key + "\""); }
    std::map<std::string, std::uint64_t> counts(const std::string& key) const {
        std::map<std::string, std::uint64_t> out;
        const auto inner = object(key);
        for (const auto& [name, value] : at(key).items()) {
            out[name] = inner.count(name);
        }
        return out;
    }
    const json& raw() const { return object_; }
    const std::string& file() const { return file_; }

  private:
    const json& object_;
    const std::string& file_;
    std::string where_;
};

std::uint64_t hex_digest(const Fields& f, const std::string& key) {
    const auto& value = f.at(key);
    const auto* text = value.is_string() ? value.get_ptr<const std::string*>() : nullptr;
    std::uint64_t digest = 0;
    if (text == nullptr || text->size() != 16 ||
        std::from_chars(text->data(), text->data() + 16, digest, 16).ptr != text->data() + 16) {
        f.refuse("field \"" + key + "\" is not 16 hex digits");
    }
    return digest;
}

void read_totals(const Fields& f, sim::RunStats& t) {
    t.steps = f.count("steps");
    t.evaluations = f.count("evaluations");
    t.checkpoints = f.count("checkpoints");
    t.incarnations = f.count("incarnations");
    t.resumes = f.count("resumes");
    t.hangs = f.count("hangs");
    t.watchdog_restarts = f.count("watchdog_restarts");
    t.stopped_by_policy = f.count("stopped_by_policy");
    t.refusals_fixed = f.count("refusals_fixed");
    t.trained_to_end = f.count("trained_to_end");
    t.relaunches = f.counts("relaunches");
    t.virtual_ms = static_cast<std::int64_t>(f.count("virtual_ms"));
    t.save_window_dangling = f.count("save_window_dangling");
    t.crashes = f.counts("crashes");
    const auto passes = f.object("crash_point_passes");
    const auto coverage = f.object("coverage");
    for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
        const std::string point(sim::kCrashPointNames[i]);
        t.crash_point_passes[i] = passes.count(point);
        t.crash_point_hits[i] = coverage.count(point);
    }
    // The coverage keys that are neither a crash point nor a crash kind are the fault kinds.
    for (const auto& [key, value] : coverage.raw().items()) {
        bool point = false;
        for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
            point = point || key == sim::kCrashPointNames[i];
        }
        if (!point && key.rfind("crash_kind:", 0) != 0) {
            t.faults[key] = coverage.count(key);
        }
    }
    const auto rare = f.object("rare_paths");
    for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
        t.rare_paths[i] = rare.object(std::string(sim::kRarePathNames[i])).count("scenarios");
    }
}

void read_violations(const Fields& f, ParsedShard& shard) {
    const auto& list = f.at("violations");
    if (!list.is_array()) {
        f.refuse("field \"violations\" is not a list");
    }
    for (const auto& entry : list) {
        const Fields found(entry, f.file(), "a violation");
        sim::FoundViolation violation;
        violation.seed = found.count("seed");
        const auto& properties = found.at("violations");
        if (!properties.is_array() || properties.empty()) {
            found.refuse("lists no property");
        }
        for (const auto& item : properties) {
            const Fields v(item, f.file(), "a violation of seed " + std::to_string(violation.seed));
            const auto& id = v.at("property");
            const auto& message = v.at("message");
            const auto property = sim::parse_property(id.is_string() ? id.get<std::string>() : std::string());
            if (!property.has_value() || !message.is_string()) {
                v.refuse("names no known property and message");
            }
            const auto known = property.value();
            violation.violations.push_back({known, message.get<std::string>()});
            shard.summary.violations_by_property[static_cast<std::size_t>(known)] += 1;
        }
        const auto& replay = found.at("replay");
        shard.replays.push_back(replay.is_string() ? replay.get<std::string>() : std::string());
        shard.summary.violations.push_back(std::move(violation));
    }
}

ParsedShard read_shard(const ShardFile& file) {
    const auto document = parse_untrusted_json(file.text, file.name);
    const Fields f(document, file.name);
    ParsedShard shard;
    shard.name = file.name;
    for (const char* key : {"ckptsim_version", "scenario_format", "build_id", "run"}) {
        shard.identity[key] = f.at(key);
    }
    // The fields read below are this release's layout; another release's file is not guessed at.
    if (shard.identity["ckptsim_version"] != sim::kCkptsimVersion ||
        shard.identity["scenario_format"] != sim::kScenarioFormat) {
        f.refuse("was written by ckptsim " + shard.identity["ckptsim_version"].dump() + " (scenario format " +
                 shard.identity["scenario_format"].dump() + "); this is ckptsim " +
                 std::string(sim::kCkptsimVersion) + " (scenario format " +
                 std::to_string(sim::kScenarioFormat) + ")");
    }
    const auto where = f.object("shard");
    shard.index = static_cast<unsigned>(std::min<std::uint64_t>(where.count("index"), UINT32_MAX));
    shard.count = static_cast<unsigned>(std::min<std::uint64_t>(where.count("count"), UINT32_MAX));
    if (shard.count == 0 || shard.index == 0 || shard.index > shard.count) {
        f.refuse("names shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count));
    }
    auto& s = shard.summary;
    s.scenarios = f.count("scenarios");
    s.ranks = f.count("ranks");
    s.scenarios_with_fault = f.count("scenarios_with_fault");
    s.first_seed = f.count("first_seed");
    s.last_seed = f.count("last_seed");
    s.scenario_digest = hex_digest(f, "scenario_digest");
    const auto& interrupted = f.at("interrupted");
    s.interrupted = interrupted.is_boolean() && interrupted.get<bool>();
    s.outcomes = f.counts("outcomes");
    const auto& trace_hash = f.at("trace_hash");
    s.trace_hash = trace_hash.is_string() ? trace_hash.get<std::string>() : std::string();
    read_totals(f, s.totals);
    read_violations(f, shard);
    return shard;
}

// The seeds shard K/N of the run covers, checked against what the file says it covered.
void check_seed_range(const ParsedShard& shard, const json& run) {
    const auto& s = shard.summary;
    const auto refuse = [&](const std::string& reason) { throw ShardRefused(shard.name + ": " + reason); };
    const auto& first = run.at("first_seed");
    if (!first.is_number_unsigned() || s.first_seed != first.get<std::uint64_t>() + shard.index - 1) {
        refuse("first_seed " + std::to_string(s.first_seed) + " is not where shard " +
               std::to_string(shard.index) + "/" + std::to_string(shard.count) + " of the run starts");
    }
    const std::uint64_t n = shard.count;
    if (s.scenarios > 0 && s.last_seed != s.first_seed + (s.scenarios - 1) * n) {
        refuse("last_seed " + std::to_string(s.last_seed) + " does not follow from " +
               std::to_string(s.scenarios) + " scenarios every " + std::to_string(n) + "th seed");
    }
    if (const auto& seeds = run.at("seeds"); seeds.is_number_unsigned()) {
        const auto total = seeds.get<std::uint64_t>();
        const std::uint64_t items = total > shard.index - 1 ? (total - (shard.index - 1) + n - 1) / n : 0;
        const bool cut_short = s.interrupted || !run.at("time_budget_seconds").is_null();
        if (s.scenarios > items || (!cut_short && s.scenarios != items)) {
            refuse(std::to_string(s.scenarios) + " scenarios, but shard " + std::to_string(shard.index) +
                   "/" + std::to_string(n) + " of " + std::to_string(total) + " seeds has " +
                   std::to_string(items));
        }
    }
    for (const auto& found : s.violations) {
        if (found.seed < s.first_seed || found.seed > s.last_seed || (found.seed - s.first_seed) % n != 0) {
            refuse("a violation at seed " + std::to_string(found.seed) +
                   ", which is not a seed of this shard");
        }
    }
}

// Refuses `shard` unless it belongs to the same run as `reference` and has an index of its own.
void check_same_run(const ParsedShard& shard, const ParsedShard& reference,
                    const std::vector<const ParsedShard*>& by_index) {
    for (const auto& [key, value] : reference.identity.items()) {
        if (shard.identity.at(key) != value) {
            throw ShardRefused(shard.name + ": \"" + key + "\" is " + shard.identity.at(key).dump() +
                               ", but " + reference.name + " has " + value.dump() +
                               " (shards of different builds or runs)");
        }
    }
    if (shard.count != reference.count) {
        throw ShardRefused(shard.name + ": shard " + std::to_string(shard.index) + "/" +
                           std::to_string(shard.count) + ", but " + reference.name + " is one of " +
                           std::to_string(reference.count) + " shards");
    }
    if (const auto* twin = by_index[shard.index - 1]) {
        throw ShardRefused(shard.name + ": shard " + std::to_string(shard.index) + "/" +
                           std::to_string(shard.count) + " is also " + twin->name +
                           " (a duplicate shard overlaps its seeds)");
    }
}

}  // namespace

MergedShards merge_shards(const std::vector<ShardFile>& files, bool allow_partial) {
    if (files.empty()) {
        throw ShardRefused("merge: no shard files given");
    }
    std::vector<ParsedShard> shards;
    for (const auto& file : files) {
        shards.push_back(read_shard(file));
    }
    const auto& reference = shards.front();
    MergedShards merged;
    merged.shard_count = reference.count;
    merged.run = reference.identity;
    std::vector<const ParsedShard*> by_index(reference.count, nullptr);
    for (const auto& shard : shards) {
        check_same_run(shard, reference, by_index);
        check_seed_range(shard, reference.identity.at("run"));
        by_index[shard.index - 1] = &shard;
        if (shard.summary.interrupted) {
            if (!allow_partial) {
                throw ShardRefused(shard.name + ": shard " + std::to_string(shard.index) + "/" +
                                   std::to_string(shard.count) +
                                   " was interrupted (use --partial to merge it)");
            }
            merged.interrupted.push_back(shard.name);
        }
    }
    for (unsigned k = 1; k <= reference.count; ++k) {
        if (by_index[k - 1] == nullptr) {
            merged.missing.push_back(k);
        }
    }
    if (!merged.missing.empty() && !allow_partial) {
        std::string list;
        for (const auto k : merged.missing) {
            list += (list.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(reference.count);
        }
        throw ShardRefused("merge: missing shard" + std::string(merged.missing.size() > 1 ? "s " : " ") +
                           list + " (use --partial to merge the shards given)");
    }
    auto& sum = merged.summary;
    sum.first_seed = UINT64_MAX;
    for (const auto* shard : by_index) {
        if (shard == nullptr) {
            continue;
        }
        sim::add_summary(sum, shard->summary);
        sum.first_seed = std::min(sum.first_seed, shard->summary.first_seed);
        if (shard->summary.scenarios > 0) {
            sum.last_seed = std::max(sum.last_seed, shard->summary.last_seed);
        }
        sum.interrupted = sum.interrupted || shard->summary.interrupted;
    }
    if (sum.scenarios == 0) {
        sum.last_seed = sum.first_seed;
    }
    // Violations and their replays travel together into seed order.
    std::vector<std::pair<sim::FoundViolation, std::string>> found;
    for (const auto* shard : by_index) {
        for (std::size_t i = 0; shard != nullptr && i < shard->summary.violations.size(); ++i) {
            found.emplace_back(shard->summary.violations[i], shard->replays[i]);
        }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first.seed < b.first.seed; });
    sum.violations.clear();
    for (auto& [violation, replay] : found) {
        sum.violations.push_back(std::move(violation));
        merged.replays.push_back(std::move(replay));
    }
    if (reference.count == 1) {
        merged.single_trace_hash = reference.summary.trace_hash;
    }
    return merged;
}

}  // namespace ckpt::cli
