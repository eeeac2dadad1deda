// A checkpoint's model weights as Trainer._load_from_checkpoint looks for them, and a structural
// check of a safetensors file (an 8-byte little-endian header length, then a JSON header whose
// data_offsets end where the file ends), so a file a power loss tore is told from a whole one.
// Depends on the FileSystem port and nlohmann::json.
#pragma once

#include <string>
#include <string_view>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// A whole safetensors file with no tensors, its header holding {"__metadata__": {"step": step}}.
std::string safetensors_without_tensors(std::string_view step);

// True when `bytes` is a whole safetensors file: a parseable header and exactly its data.
bool is_whole_safetensors(std::string_view bytes);

// True when `checkpoint_dir` holds weights Transformers can load: a whole *.safetensors file, a
// non-empty .bin, or an index (model.safetensors.index.json, pytorch_model.bin.index.json) that
// parses and whose every shard is whole (safetensors) or non-empty (.bin): a resume loads every
// shard, so one a power loss tore fails it.
bool holds_loadable_weights(FileSystem& fs, const std::string& checkpoint_dir);

}  // namespace ckpt
