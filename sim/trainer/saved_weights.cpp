// save_pretrained's files and _load_from_checkpoint's reading of them.
#include "sim/trainer/saved_weights.hpp"

#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/base/json_text.hpp"
#include "sim/trainer/safetensors_file.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"

namespace ckpt::sim::transformers {
namespace {

// f"model-{i:05d}-of-{n:05d}.safetensors", counted from 1.
std::string shard_name(int index, int shards) {
    char name[48];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", index, shards);
    return name;
}

// A file's bytes, or nullopt when it is missing or not a regular file (os.path.isfile).
std::optional<std::string> regular_file(FileSystem& fs, const std::string& path) {
    if (!fs.exists(path) || fs.is_dir(path)) {
        return std::nullopt;
    }
    return fs.read_file(path);
}

}  // namespace

std::vector<WeightsFile> saved_weights(std::int64_t step, int shards) {
    if (shards <= 1) {
        return {{std::string(kSafeWeightsFile), model_weights_file(step)}};
    }
    std::vector<WeightsFile> files;
    nlohmann::json weight_map = nlohmann::json::object();
    const auto shard_bytes = model_weights_file(step);  // every shard holds the same bytes
    for (int index = 1; index <= shards; ++index) {
        auto name = shard_name(index, shards);
        weight_map["layer." + std::to_string(index) + ".weight"] = name;
        files.push_back({std::move(name), shard_bytes});
    }
    const nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}};
    files.push_back({std::string(kSafeWeightsIndexFile), dump_indented_json(index, 2, false) + "\n"});
    return files;
}

std::optional<std::string> weights_load_error(FileSystem& fs, const std::string& checkpoint_dir) {
    const auto single = join_path(checkpoint_dir, kSafeWeightsFile);
    const auto index_path = join_path(checkpoint_dir, kSafeWeightsIndexFile);
    if (const auto bytes = regular_file(fs, single)) {
        if (loads_as_safetensors(*bytes)) {
            return std::nullopt;
        }
        return "safetensors_rust.SafetensorError: Error while deserializing header of " + single;
    }
    const auto index_text = regular_file(fs, index_path);
    if (!index_text) {
        return "ValueError: Can't find a valid checkpoint at " + checkpoint_dir;
    }
    // load_sharded_checkpoint: json.load the index, then load every shard its weight_map names.
    const auto index = nlohmann::json::parse(*index_text, nullptr, false);
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object()) {
        return "json.decoder.JSONDecodeError: " + index_path;
    }
    std::set<std::string> shards;
    for (const auto& file : *map) {
        if (!file.is_string()) {
            return "TypeError: weight_map of " + index_path;
        }
        shards.insert(file.get<std::string>());
    }
    for (const auto& shard : shards) {
        const auto path = join_path(checkpoint_dir, shard);
        const auto bytes = regular_file(fs, path);
        if (!bytes) {
            return "FileNotFoundError: [Errno 2] No such file or directory: '" + path + "'";
        }
        if (!loads_as_safetensors(*bytes)) {
            return "safetensors_rust.SafetensorError: Error while deserializing header of " + path;
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim::transformers
