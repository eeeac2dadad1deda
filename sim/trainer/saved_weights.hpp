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
    "model.safetensors.index.json";                                    // SAFE_WEIGHTS_INDEX_NAME
inline constexpr std::string_view kWeightsFile = "pytorch_model.bin";  // WEIGHTS_NAME
inline constexpr std::string_view kWeightsIndexFile = "pytorch_model.bin.index.json";  // WEIGHTS_INDEX_NAME

struct WeightsFile {
    std::string name;   // inside the checkpoint directory
    std::string bytes;  // what save_pretrained writes
};

// The files of the weights saved at `step` in `shards` pieces (1: no index), in write order: as
// safetensors, or, with save_safetensors=False, as torch.save's zip archives (pytorch_model.bin,
// or the shards pytorch_model-0000i-of-0000n.bin and pytorch_model.bin.index.json).
std::vector<WeightsFile> saved_weights(std::int64_t step, int shards, bool safetensors);

// What _load_from_checkpoint (and load_best_model_at_end's load) raises for the weights in
// `checkpoint_dir`, or nullopt when they load: no weights file at all is "Can't find a valid
// checkpoint"; otherwise model.safetensors or pytorch_model.bin, or an index and every shard its
// weight_map names (the safetensors index first, as load_sharded_checkpoint prefers it), must
// load as whole files.
std::optional<std::string> weights_load_error(FileSystem& fs, const std::string& checkpoint_dir);

}  // namespace ckpt::sim::transformers
