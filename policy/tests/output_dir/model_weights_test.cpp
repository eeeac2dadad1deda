// A checkpoint's weights as Transformers loads them: a whole safetensors file is accepted, every
// strict prefix of it (what a torn power loss leaves) and a header that claims more data are not.
#include "policy/output_dir/model_weights.hpp"

#include <gtest/gtest.h>

namespace ckpt {
namespace {

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

}  // namespace
}  // namespace ckpt
