// `ckptsim merge SHARD.json...`: one summary from the `explore --json --shard K/N` outputs of a CI
// matrix, as explore prints it (words, or --json in explore's shape). Exit 0 when nothing was
// violated, 1 when a shard found a violation, 2 when a file is refused (named, with the reason).
#include <iostream>
#include <memory>

#include "policy/ports/file_system_error.hpp"
#include "policy/ports/posix_file_system.hpp"
#include "sim/base/trace_hash.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/explore_report.hpp"
#include "sim/cli/shard_merge.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

// A shard of a long soak lists its violations, each a few hundred bytes; far below this cap.
constexpr std::uint64_t kMaxShardFileBytes = std::uint64_t{256} << 20;

struct MergeCliOptions {
    std::vector<std::string> files;
    bool json = false;
    bool partial = false;
};

// The in-order trace hash folds every scenario's hash in seed order, and shards interleave their
// seeds, so it cannot be rebuilt from N shard hashes; the seed-keyed scenario digest can.
json merged_json(const MergedShards& merged, const std::vector<std::string>& files) {
    auto out = explore_json(merged.summary, merged.replays, merged.run);
    out["trace_hash"] = merged.shard_count == 1 ? json(merged.single_trace_hash) : json(nullptr);
    out["merged"] = {{"shards", merged.shard_count},
                     {"files", files},
                     {"missing_shards", merged.missing},
                     {"interrupted_files", merged.interrupted}};
    return out;
}

void print_merged(std::ostream& out, const MergedShards& merged, const std::vector<std::string>& files) {
    out << "merged " << files.size() << " of " << merged.shard_count << " shards (build "
        << merged.run.at("build_id").get<std::string>() << "): seeds " << merged.summary.first_seed << ".."
        << merged.summary.last_seed << ", " << merged.summary.scenarios << " scenarios\n";
    if (!merged.missing.empty()) {
        out << "  INCOMPLETE: missing shards";
        for (const auto k : merged.missing) {
            out << " " << k << "/" << merged.shard_count;
        }
        out << "\n";
    }
    for (const auto& file : merged.interrupted) {
        out << "  INCOMPLETE: " << file << " was interrupted\n";
    }
    print_explore_details(out, merged.summary, merged.replays);
    out << "scenario digest: " << sim::TraceHash::to_hex(merged.summary.scenario_digest)
        << (merged.shard_count == 1
                ? "; trace hash: " + merged.single_trace_hash
                : std::string("; the in-order trace hash is not combinable across shards"))
        << "\n";
}

int run_merge(const MergeCliOptions& o) {
    PosixFileSystem fs(kMaxShardFileBytes);
    std::vector<ShardFile> files;
    for (const auto& path : o.files) {
        try {
            files.push_back({path, fs.read_file(path)});
        } catch (const FileSystemError& error) {
            throw ShardRefused(path + ": cannot read: " + error.what());
        }
    }
    const auto merged = merge_shards(files, o.partial);
    if (!merged.missing.empty() || !merged.interrupted.empty()) {
        std::cerr << "ckptsim merge: warning: the summary covers only the shards given\n";
    }
    if (o.json) {
        std::cout << merged_json(merged, o.files).dump() << "\n";
    } else {
        print_merged(std::cout, merged, o.files);
    }
    return merged.summary.violations.empty() ? kExitOk : kExitViolation;
}

}  // namespace

Command add_merge_command(CLI::App& parent) {
    auto o = std::make_shared<MergeCliOptions>();
    auto* command = parent.add_subcommand(
        "merge", "Combine the explore --json outputs of --shard K/N runs into one summary");
    command->add_option("shards", o->files, "The shard files (explore --json --shard K/N outputs)")
        ->required()
        ->check(CLI::ExistingFile);
    command->add_flag("--json", o->json, "Print one JSON object, in explore --json's shape");
    command->add_flag("--partial", o->partial,
                      "Merge even when shards are missing or were interrupted (the summary says which)");
    return {command, [o]() { return run_merge(*o); }};
}

}  // namespace ckpt::cli
