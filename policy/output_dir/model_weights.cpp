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

std::uint64_t little_endian_u64(std::string_view bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < kHeaderLengthBytes; ++i) {
        value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    }
    return value;
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
    const auto header_length = little_endian_u64(bytes);
    if (header_length > bytes.size() - kHeaderLengthBytes) {
        return false;
    }
    const auto header =
        nlohmann::json::parse(bytes.substr(kHeaderLengthBytes, header_length), nullptr, false);
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
    const auto index = nlohmann::json::parse(text, nullptr, false);
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
        if (safetensors_shards ? !is_whole_safetensors(bytes) : bytes.empty()) {
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
        if (fs.exists(path) && !fs.is_dir(path) && !fs.read_file(path).empty()) {
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
