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

// True when `bytes` is a whole zip archive, as torch.save has written pytorch_model.bin since
// PyTorch 1.6: a local file header first, and at the end an end-of-central-directory record whose
// central directory lies just before it. torch.load finds that record first, so a file a power
// loss cut short or zero-filled fails to load. (A pre-1.6 pickle is not accepted.)
bool is_whole_zip_archive(std::string_view bytes);

// True when `checkpoint_dir` holds weights Transformers can load: a whole *.safetensors file or
// .bin zip archive, or an index (model.safetensors.index.json, pytorch_model.bin.index.json) that
// parses and whose every shard is whole: a resume loads every shard, so one a power loss tore
// fails it.
bool holds_loadable_weights(FileSystem& fs, const std::string& checkpoint_dir);

}  // namespace ckpt
