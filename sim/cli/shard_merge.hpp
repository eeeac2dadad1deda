// `merge`'s logic: reads `explore --json --shard K/N` outputs (untrusted JSON), refuses shards
// that do not belong to one run (another build, run configuration or seed range, another N, a
// repeated or inconsistent shard, a malformed file), and sums the rest into one ExploreSummary.
// Every refusal is a ShardRefused naming the file and the reason. Depends on sim/explore.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"
#include "sim/explore/explorer.hpp"

namespace ckpt::cli {

// A shard file that cannot be merged; what() reads "<file>: <reason>".
class ShardRefused : public ValueError {
  public:
    using ValueError::ValueError;
};

// One shard file as given on the command line: its name (for messages) and its bytes.
struct ShardFile {
    std::string name;
    std::string text;
};

struct MergedShards {
    sim::ExploreSummary summary;           // the sum, over the whole seed range (shard 1 of 1)
    std::vector<std::string> replays;      // one per violation, in seed order, as each shard wrote it
    nlohmann::json run;                    // the shards' common build and run fields, as explore wrote them
    unsigned shard_count = 1;              // N of the K/N shards
    std::vector<unsigned> missing;         // 1-based K of the shards not given (only with allow_partial)
    std::vector<std::string> interrupted;  // files whose run was interrupted (only with allow_partial)
    std::string single_trace_hash;         // with N = 1, the one shard's in-order trace hash
};

// Merges the shards. Without `allow_partial` a missing or interrupted shard is refused too.
MergedShards merge_shards(const std::vector<ShardFile>& files, bool allow_partial);

}  // namespace ckpt::cli
