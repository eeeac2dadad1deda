// The weight files the simulated Trainer's save_model writes into a checkpoint, as
// save_pretrained lays them out: one model.safetensors, or, for a model larger than
// max_shard_size, the shards model-0000i-of-0000n.safetensors followed by
// model.safetensors.index.json (its weight_map names every shard). A checkpoint's weights load
// only when every one of these files is whole, which is what a resume and
// load_best_model_at_end need. Depends on the FileSystem port and nlohmann::json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/ports/file_system.hpp"

namespace ckpt::sim::transformers {

inline constexpr std::string_view kSafeWeightsIndexFile =
    "model.safetensors.index.json";  // SAFE_WEIGHTS_INDEX_NAME

struct WeightsFile {
    std::string name;   // inside the checkpoint directory
    std::string bytes;  // what save_pretrained writes
};

// The files of the weights saved at `step` in `shards` pieces (1: no index), in write order.
std::vector<WeightsFile> saved_weights(std::int64_t step, int shards);

// What _load_from_checkpoint (and load_best_model_at_end's load) raises for the weights in
// `checkpoint_dir`, or nullopt when they load: no weights file at all is "Can't find a valid
// checkpoint"; otherwise model.safetensors, or the index and every shard its weight_map names,
// must parse as whole files.
std::optional<std::string> weights_load_error(FileSystem& fs, const std::string& checkpoint_dir);

}  // namespace ckpt::sim::transformers
