// The model weights as torch.save writes them when TrainingArguments.save_safetensors is False
// (pytorch_model.bin): a zip archive, and what torch.load needs of it before it reads a tensor.
// Written apart from the port's weights check, so the port is judged against the format, not
// against itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::sim::transformers {

// The weights saved at `step`: one stored entry "archive/data.pkl" holding "weights@<step>",
// then the central directory and its end record, as a zip writer lays them out.
std::string pickled_weights_file(std::int64_t step);

// Whether torch.load would open `bytes`: the end-of-central-directory record closes the file
// (no comment), and the central directory it points to lies just before it and starts with a
// central file header. A file a power loss cut short or zero-filled fails ("PytorchStreamReader
// failed reading zip archive: failed finding central directory").
bool loads_as_torch_zip(std::string_view bytes);

}  // namespace ckpt::sim::transformers
