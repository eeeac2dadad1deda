// A checkpoint's weights as Transformers loads them: a whole safetensors file is accepted, every
// strict prefix of it (what a torn power loss leaves) and a header that claims more data are not;
// a shard index only with every shard whole.
#include "policy/output_dir/model_weights.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/base/mutants.hpp"
#include "policy/tests/support/file_system_backends.hpp"

namespace ckpt {
namespace {

// A real zip archive, as Python's zipfile writes one stored entry "archive/data.pkl" holding
// "weights" (dated 1980-01-01): the layout torch.save gives pytorch_model.bin.
const std::string kZipArchive(
    "\x50\x4b\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x21\x00\x58\x73\xd2\x1a\x07\x00\x00\x00\x07\x00"
    "\x00\x00\x10\x00\x00\x00\x61\x72\x63\x68\x69\x76\x65\x2f\x64\x61\x74\x61\x2e\x70\x6b\x6c\x77\x65"
    "\x69\x67\x68\x74\x73\x50\x4b\x01\x02\x14\x03\x14\x00\x00\x00\x00\x00\x00\x00\x21\x00\x58\x73\xd2"
    "\x1a\x07\x00\x00\x00\x07\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01\x00"
    "\x00\x00\x00\x61\x72\x63\x68\x69\x76\x65\x2f\x64\x61\x74\x61\x2e\x70\x6b\x6c\x50\x4b\x05\x06\x00"
    "\x00\x00\x00\x01\x00\x01\x00\x3e\x00\x00\x00\x35\x00\x00\x00\x00\x00",
    137);

// What a torn power loss leaves of a write (sim/disk): the bytes cut short, or the size kept and
// the tail zero-filled. Neither is a whole archive; the whole one is, with a comment too.
TEST(ModelWeights, AWholeZipArchiveIsWholeAndNoTornCopyIs) {
    EXPECT_TRUE(is_whole_zip_archive(kZipArchive));
    for (std::size_t length = 0; length < kZipArchive.size(); ++length) {
        EXPECT_FALSE(is_whole_zip_archive(kZipArchive.substr(0, length))) << length;
        const auto zero_filled =
            kZipArchive.substr(0, length) + std::string(kZipArchive.size() - length, '\0');
        if (zero_filled != kZipArchive) {  // past the last non-zero byte nothing is lost
            EXPECT_FALSE(is_whole_zip_archive(zero_filled)) << length;
        }
    }
    std::string commented = kZipArchive;
    commented[commented.size() - 2] = 3;  // the end record's comment length
    EXPECT_FALSE(is_whole_zip_archive(commented));
    EXPECT_TRUE(is_whole_zip_archive(commented + "abc"));
    EXPECT_FALSE(is_whole_zip_archive("tensors"));
}

TEST(ModelWeights, AWholeTensorFreeSafetensorsFileIsWholeAndNoPrefixIs) {
    const auto bytes = safetensors_without_tensors("weights@10");
    EXPECT_TRUE(is_whole_safetensors(bytes));
    for (std::size_t length = 0; length < bytes.size(); ++length) {
        EXPECT_FALSE(is_whole_safetensors(std::string_view(bytes).substr(0, length))) << length;
    }
}

TEST(ModelWeights, DataOffsetsMustEndWhereTheFileEnds) {
    const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    std::string bytes(8, '\0');
    bytes[0] = static_cast<char>(header.size());
    bytes += header;
    EXPECT_FALSE(is_whole_safetensors(bytes + "abc"));
    EXPECT_TRUE(is_whole_safetensors(bytes + "abcd"));
    EXPECT_FALSE(is_whole_safetensors(bytes + "abcde"));
    EXPECT_FALSE(is_whole_safetensors("weights@10"));
}

// Sharded weights: an index loads only when every shard its weight_map names is whole, as
// load_sharded_checkpoint loads each one on a resume.
template <typename Backend>
class ShardedWeights : public ::testing::Test {
  protected:
    FileSystem& fs() { return backend_.fs; }
    const std::string& dir() const { return backend_.root; }
    void write(const std::string& name, const std::string& bytes) {
        fs().write_file(join_path(dir(), name), bytes);
    }
    void write_index(const std::string& name, const nlohmann::json& weight_map) {
        write(name, nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump(2));
    }
    // Two safetensors shards and their index, all whole.
    void write_two_shards() {
        write("model-00001-of-00002.safetensors", safetensors_without_tensors("a"));
        write("model-00002-of-00002.safetensors", safetensors_without_tensors("b"));
        write_index("model.safetensors.index.json", {{"a.weight", "model-00001-of-00002.safetensors"},
                                                     {"b.weight", "model-00002-of-00002.safetensors"}});
    }

  private:
    Backend backend_;
};
TYPED_TEST_SUITE(ShardedWeights, testing::Backends, testing::BackendNames);

TYPED_TEST(ShardedWeights, WholeShardsLoad) {
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    this->write_two_shards();
    EXPECT_TRUE(holds_loadable_weights(this->fs(), this->dir()));
    const mutants::MutantScope unread(mutants::Mutant::shard_index_unread);
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
}

TYPED_TEST(ShardedWeights, ATornOrMissingShardOrATornIndexDoesNotLoad) {
    this->write_two_shards();
    const auto shard = safetensors_without_tensors("b");
    this->write("model-00002-of-00002.safetensors", shard.substr(0, shard.size() - 1));
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    {
        const mutants::MutantScope trusted(mutants::Mutant::shard_index_trusted);
        EXPECT_TRUE(holds_loadable_weights(this->fs(), this->dir()));
    }
    this->fs().unlink(join_path(this->dir(), "model-00002-of-00002.safetensors"));
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    this->write_two_shards();
    this->write("model.safetensors.index.json", "{\"metadata\": {\"total_size\": 0}, \"weight_");
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    this->write_index("model.safetensors.index.json", nlohmann::json::object());
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
}

// A .bin file or shard loads only as a whole zip archive (finding 25: a torn one is not empty).
TYPED_TEST(ShardedWeights, BinWeightsMustBeWholeZipArchives) {
    this->write("pytorch_model-00001-of-00001.bin", "");
    this->write_index("pytorch_model.bin.index.json", {{"w", "pytorch_model-00001-of-00001.bin"}});
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    this->write("pytorch_model-00001-of-00001.bin", kZipArchive.substr(0, 100));
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    {
        const mutants::MutantScope trusted(mutants::Mutant::bin_weights_trusted);
        EXPECT_TRUE(holds_loadable_weights(this->fs(), this->dir()));
    }
    this->write("pytorch_model-00001-of-00001.bin", kZipArchive);
    EXPECT_TRUE(holds_loadable_weights(this->fs(), this->dir()));
    this->fs().unlink(join_path(this->dir(), "pytorch_model.bin.index.json"));
    this->fs().unlink(join_path(this->dir(), "pytorch_model-00001-of-00001.bin"));
    this->write("pytorch_model.bin", kZipArchive.substr(0, 136));
    EXPECT_FALSE(holds_loadable_weights(this->fs(), this->dir()));
    this->write("pytorch_model.bin", kZipArchive);
    EXPECT_TRUE(holds_loadable_weights(this->fs(), this->dir()));
}

}  // namespace
}  // namespace ckpt
