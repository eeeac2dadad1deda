// The model weights the simulated Trainer saves and loads, as a safetensors file with no tensors:
// what safetensors' serializer writes (an 8-byte little-endian header length, then a JSON header
// padded with spaces to a multiple of 8 bytes) and what its loader accepts. Written apart from
// the port's weights check, so the port is judged against the format, not against itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::sim::transformers {

// The weights saved at `step`: header {"__metadata__":{"step":"weights@<step>"}}, no tensors.
std::string model_weights_file(std::int64_t step);

// Whether safetensors would load `bytes`, as its Rust loader validates a file: a header length
// that fits, a header that starts with '{' and parses to an object, tensors whose offsets match
// their dtype and shape and tile the data section, and a file that ends where the data ends. A
// torn file fails to load (SafetensorError).
bool loads_as_safetensors(std::string_view bytes);

}  // namespace ckpt::sim::transformers
