// The weight-file rules of model_weights.hpp. The header is parsed with nlohmann::json without
// exceptions; any malformed or short file is "not whole".
#include "policy/output_dir/model_weights.hpp"

#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"

namespace ckpt {
namespace {

constexpr std::size_t kHeaderLengthBytes = 8;
constexpr std::array<const char*, 2> kSafetensorsFiles{"model.safetensors", "adapter_model.safetensors"};
constexpr std::array<const char*, 2> kOtherWeightFiles{"pytorch_model.bin", "adapter_model.bin"};
// An index names its shards in "weight_map"; the shards are safetensors files or .bin files.
struct ShardIndex {
    const char* name;
    bool safetensors_shards;
};
constexpr std::array<ShardIndex, 2> kShardIndexes{
    {{"model.safetensors.index.json", true}, {"pytorch_model.bin.index.json", false}}};

// The little-endian unsigned integer of `width` bytes at `at`.
std::uint64_t little_endian(std::string_view bytes, std::size_t at, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
        value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    return value;
}

// A .bin weights file or shard: a whole zip archive, or, as the rule once was, any bytes at all.
bool is_loadable_bin(std::string_view bytes) {
    if (mutants::is_active(mutants::Mutant::bin_weights_trusted)) {
        return !bytes.empty();
    }
    return is_whole_zip_archive(bytes);
}

}  // namespace

std::string safetensors_without_tensors(std::string_view step) {
    const std::string header = nlohmann::json{{"__metadata__", {{"step", std::string(step)}}}}.dump();
    std::string bytes(kHeaderLengthBytes, '\0');
    for (std::size_t i = 0; i < kHeaderLengthBytes; ++i) {
        bytes[i] = static_cast<char>((static_cast<std::uint64_t>(header.size()) >> (8 * i)) & 0xffU);
    }
    return bytes + header;
}

bool is_whole_safetensors(std::string_view bytes) {
    if (bytes.size() < kHeaderLengthBytes) {
        return false;
    }
    const auto header_length = little_endian(bytes, 0, kHeaderLengthBytes);
    if (header_length > bytes.size() - kHeaderLengthBytes) {
        return false;
    }
    const auto header_text = bytes.substr(kHeaderLengthBytes, header_length);
    // safetensors' serde_json refuses a NUL (trailing characters) where nlohmann stops reading at one.
    const auto header = header_text.find('\0') == std::string_view::npos
                            ? nlohmann::json::parse(header_text, nullptr, false)
                            : nlohmann::json(nlohmann::json::value_t::discarded);
    if (!header.is_object()) {
        return false;
    }
    std::uint64_t data_end = 0;
    for (const auto& [name, tensor] : header.items()) {
        if (name == "__metadata__") {
            continue;
        }
        const auto offsets = tensor.is_object() ? tensor.find("data_offsets") : tensor.end();
        if (offsets == tensor.end() || !offsets->is_array() || offsets->size() != 2 ||
            !(*offsets)[1].is_number_unsigned()) {
            return false;
        }
        data_end = std::max(data_end, (*offsets)[1].get<std::uint64_t>());
    }
    return bytes.size() - kHeaderLengthBytes - header_length == data_end;
}

bool is_whole_zip_archive(std::string_view bytes) {
    constexpr std::string_view kLocalFileHeader = "PK\x03\x04";
    constexpr std::string_view kCentralFileHeader = "PK\x01\x02";
    constexpr std::string_view kEndRecordSignature = "PK\x05\x06";
    constexpr std::size_t kEndRecordBytes = 22;  // without its comment
    constexpr std::size_t kMaxComment = 0xffff;
    if (bytes.size() < kLocalFileHeader.size() + kEndRecordBytes || !bytes.starts_with(kLocalFileHeader)) {
        return false;
    }
    // The record sits at the end, followed only by its comment, whose length it gives.
    const std::size_t last = bytes.size() - kEndRecordBytes;
    const std::size_t first = last > kMaxComment ? last - kMaxComment : 0;
    for (std::size_t at = last + 1; at-- > first;) {
        if (bytes.compare(at, kEndRecordSignature.size(), kEndRecordSignature) != 0 ||
            little_endian(bytes, at + 20, 2) != bytes.size() - at - kEndRecordBytes) {
            continue;
        }
        const auto directory_size = little_endian(bytes, at + 12, 4);
        const auto directory_offset = little_endian(bytes, at + 16, 4);
        return directory_offset + directory_size == at &&
               (directory_size == 0 ||
                bytes.compare(directory_offset, kCentralFileHeader.size(), kCentralFileHeader) == 0);
    }
    return false;
}

namespace {

// Whether `index_name` in checkpoint_dir parses and every shard its weight_map names is a whole
// file (load_sharded_checkpoint loads each one; a torn or missing shard fails the resume).
bool holds_loadable_shards(FileSystem& fs, const std::string& checkpoint_dir, const char* index_name,
                           bool safetensors_shards) {
    const auto index_path = join_path(checkpoint_dir, index_name);
    if (!fs.exists(index_path) || fs.is_dir(index_path)) {
        return false;
    }
    const auto text = fs.read_file(index_path);
    if (mutants::is_active(mutants::Mutant::shard_index_trusted)) {
        return !text.empty();
    }
    // json.load refuses a NUL (extra data) where nlohmann stops reading at one.
    const auto index = text.find('\0') == std::string::npos
                           ? nlohmann::json::parse(text, nullptr, false)
                           : nlohmann::json(nlohmann::json::value_t::discarded);
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object() || map->empty()) {
        return false;
    }
    for (const auto& shard : *map) {
        if (!shard.is_string()) {
            return false;
        }
        const auto path = join_path(checkpoint_dir, shard.get<std::string>());
        if (!fs.exists(path) || fs.is_dir(path)) {
            return false;
        }
        const auto bytes = fs.read_file(path);
        if (safetensors_shards ? !is_whole_safetensors(bytes) : !is_loadable_bin(bytes)) {
            return false;
        }
    }
    return true;
}

}  // namespace

// The FileSystem port has no stat or ranged read, so the file is read whole: cheap for the
// simulator's tensor-free files; a real integration would read the header and the size only.
bool holds_loadable_weights(FileSystem& fs, const std::string& checkpoint_dir) {
    for (const char* name : kSafetensorsFiles) {
        const auto path = join_path(checkpoint_dir, name);
        if (fs.exists(path) && !fs.is_dir(path) && is_whole_safetensors(fs.read_file(path))) {
            return true;
        }
    }
    for (const char* name : kOtherWeightFiles) {
        const auto path = join_path(checkpoint_dir, name);
        if (fs.exists(path) && !fs.is_dir(path) && is_loadable_bin(fs.read_file(path))) {
            return true;
        }
    }
    if (mutants::is_active(mutants::Mutant::shard_index_unread)) {
        return false;
    }
    for (const auto& index : kShardIndexes) {
        if (holds_loadable_shards(fs, checkpoint_dir, index.name, index.safetensors_shards)) {
            return true;
        }
    }
    return false;
}

}  // namespace ckpt
