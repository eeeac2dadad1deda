// safetensors' layout: the header length, the padded JSON header, then the tensor data.
#include "sim/trainer/safetensors_file.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/json_text.hpp"
#include "sim/base/json_tree_reader.hpp"

namespace ckpt::sim::transformers {
namespace {

constexpr std::uint64_t kLengthBytes = 8;  // the u64 header length before the header

// Bytes per element of the dtypes safetensors names; 0 for a name it does not know.
std::uint64_t dtype_bytes(const std::string& dtype) {
    static const std::map<std::string, std::uint64_t, std::less<>> sizes = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
        {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
        {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
    const auto found = sizes.find(dtype);
    return found == sizes.end() ? 0 : found->second;
}

// One tensor's [begin, end) in the data section, when its entry is well formed and its extent
// matches its dtype and shape (safetensors' TensorInvalidInfo otherwise).
std::optional<std::pair<std::uint64_t, std::uint64_t>> tensor_extent(const nlohmann::json& info) {
    if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
        !info.contains("data_offsets")) {
        return std::nullopt;
    }
    const auto& dtype = info["dtype"];
    const auto& shape = info["shape"];
    const auto& offsets = info["data_offsets"];
    if (!dtype.is_string() || !shape.is_array() || !offsets.is_array() || offsets.size() != 2 ||
        !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
        return std::nullopt;
    }
    std::uint64_t elements = 1;
    for (const auto& dimension : shape) {
        if (!dimension.is_number_unsigned()) {
            return std::nullopt;
        }
        elements *= dimension.get<std::uint64_t>();
    }
    const auto begin = offsets[0].get<std::uint64_t>();
    const auto end = offsets[1].get<std::uint64_t>();
    if (end < begin || end - begin != elements * dtype_bytes(dtype.get<std::string>())) {
        return std::nullopt;
    }
    return std::pair{begin, end};
}

}  // namespace

std::string model_weights_file(std::int64_t step) {
    // json.dumps of {"__metadata__": {"step": "weights@<step>"}} as the serializer writes it:
    // one key per object and a plain string, so the text is these bytes (what dump() gives).
    std::string header = R"({"__metadata__":{"step":"weights@)";
    append_json_integer(header, step);
    header += R"("}})";
    // The serializer pads the header with spaces so the data that follows is 8-byte aligned.
    while (header.size() % kLengthBytes != 0) {
        header.push_back(' ');
    }
    std::string file;
    for (std::uint64_t length = header.size(), written = 0; written < kLengthBytes;
         ++written, length >>= 8U) {
        file.push_back(static_cast<char>(length & 0xffU));
    }
    return file + header;
}

bool loads_as_safetensors(std::string_view bytes) {
    if (bytes.size() < kLengthBytes) {
        return false;  // HeaderTooSmall
    }
    std::uint64_t header_length = 0;
    for (std::uint64_t index = 0; index < kLengthBytes; ++index) {
        header_length |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[index])) << (8U * index);
    }
    const std::uint64_t available = bytes.size() - kLengthBytes;
    if (header_length > available) {
        return false;  // InvalidHeaderLength
    }
    const auto header_text = bytes.substr(kLengthBytes, header_length);
    if (!header_text.starts_with('{')) {
        return false;  // InvalidHeaderStart
    }
    const auto header = parse_json_text_or_discarded(
        header_text, JsonDialect::strict);  // serde_json: a NUL is trailing characters
    if (!header.is_object()) {
        return false;  // InvalidHeaderDeserialization
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> extents;
    for (const auto& [name, info] : header.items()) {
        if (name == "__metadata__") {
            continue;
        }
        const auto extent = tensor_extent(info);
        if (!extent) {
            return false;
        }
        extents.push_back(*extent);
    }
    // Sorted by offset, the tensors must tile the data section from 0 without a gap.
    std::sort(extents.begin(), extents.end());
    std::uint64_t data_end = 0;
    for (const auto& [begin, end] : extents) {
        if (begin != data_end) {
            return false;  // InvalidOffset
        }
        data_end = end;
    }
    return header_length + data_end == available;  // else MetadataIncompleteBuffer
}

}  // namespace ckpt::sim::transformers
