// save_pretrained's files and _load_from_checkpoint's reading of them.
#include "sim/trainer/saved_weights.hpp"

#include <cstdio>
#include <optional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/base/json_text.hpp"
#include "sim/base/json_tree_reader.hpp"
#include "sim/trainer/safetensors_file.hpp"
#include "sim/trainer/torch_zip_file.hpp"
#include "sim/trainer/transformers_checkpoints.hpp"

namespace ckpt::sim::transformers {
namespace {

// f"model-{i:05d}-of-{n:05d}.safetensors" (or "pytorch_model-...bin"), counted from 1.
std::string shard_name(int index, int shards, bool safetensors) {
    char name[64];
    std::snprintf(name, sizeof name,
                  safetensors ? "model-%05d-of-%05d.safetensors" : "pytorch_model-%05d-of-%05d.bin", index,
                  shards);
    return name;
}

// What loading one weights file raises, or nullopt when it loads.
std::optional<std::string> file_load_error(std::string_view bytes, const std::string& path,
                                           bool safetensors) {
    if (safetensors) {
        if (loads_as_safetensors(bytes)) {
            return std::nullopt;
        }
        return "safetensors_rust.SafetensorError: Error while deserializing header of " + path;
    }
    if (loads_as_torch_zip(bytes)) {
        return std::nullopt;
    }
    return "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory "
           "(" +
           path + ")";
}

// A file's bytes, or nullopt when it is missing or not a regular file (os.path.isfile).
std::optional<std::string> regular_file(FileSystem& fs, const std::string& path) {
    if (!fs.exists(path) || fs.is_dir(path)) {
        return std::nullopt;
    }
    return fs.read_file(path);
}

}  // namespace

std::vector<WeightsFile> saved_weights(std::int64_t step, int shards, bool safetensors) {
    // Every shard holds the same bytes.
    const auto bytes = safetensors ? model_weights_file(step) : pickled_weights_file(step);
    if (shards <= 1) {
        return {{std::string(safetensors ? kSafeWeightsFile : kWeightsFile), bytes}};
    }
    std::vector<WeightsFile> files;
    nlohmann::json weight_map = nlohmann::json::object();
    for (int index = 1; index <= shards; ++index) {
        auto name = shard_name(index, shards, safetensors);
        weight_map["layer." + std::to_string(index) + ".weight"] = name;
        files.push_back({std::move(name), bytes});
    }
    const nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}};
    files.push_back({std::string(safetensors ? kSafeWeightsIndexFile : kWeightsIndexFile),
                     dump_indented_json(index, 2, false) + "\n"});
    return files;
}

std::optional<std::string> weights_load_error(FileSystem& fs, const std::string& checkpoint_dir) {
    for (const bool safetensors : {true, false}) {
        const auto single = join_path(checkpoint_dir, safetensors ? kSafeWeightsFile : kWeightsFile);
        if (const auto bytes = regular_file(fs, single)) {
            return file_load_error(*bytes, single, safetensors);
        }
    }
    bool safetensors = true;
    auto index_path = join_path(checkpoint_dir, kSafeWeightsIndexFile);
    auto index_text = regular_file(fs, index_path);
    if (!index_text) {
        safetensors = false;
        index_path = join_path(checkpoint_dir, kWeightsIndexFile);
        index_text = regular_file(fs, index_path);
    }
    if (!index_text) {
        return "ValueError: Can't find a valid checkpoint at " + checkpoint_dir;
    }
    // load_sharded_checkpoint: json.load the index, then load every shard its weight_map names.
    const auto index = parse_json_text_or_discarded(*index_text);
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
        if (auto error = file_load_error(*bytes, path, safetensors)) {
            return error;
        }
    }
    return std::nullopt;
}

}  // namespace ckpt::sim::transformers
