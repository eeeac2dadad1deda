// The simulated Trainer's weights file: safetensors' padded layout with the serializer's own
// header text, loadable whole and never loadable torn, and accepted by the port's weights check
// as a real file would be.
#include "sim/trainer/safetensors_file.hpp"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/output_dir/model_weights.hpp"

namespace ckpt::sim::transformers {
namespace {

TEST(SafetensorsFile, HeaderIsPaddedToEightBytesAndLoads) {
    for (const std::int64_t step : {0, 7, 123456789}) {
        const auto bytes = model_weights_file(step);
        EXPECT_EQ(bytes.size() % 8, 0U) << step;
        EXPECT_NE(bytes.find("weights@" + std::to_string(step)), std::string::npos);
        EXPECT_TRUE(loads_as_safetensors(bytes)) << step;
        EXPECT_TRUE(is_whole_safetensors(bytes)) << "the port refuses a padded header, step " << step;
    }
}

TEST(SafetensorsFile, HeaderIsTheSerializersDumpOfTheMetadata) {
    for (const std::int64_t step : {std::int64_t{0}, std::int64_t{58}, std::int64_t{-3}, INT64_MAX}) {
        const auto bytes = model_weights_file(step);
        const nlohmann::json metadata = {{"__metadata__", {{"step", "weights@" + std::to_string(step)}}}};
        auto expected = metadata.dump();
        expected.append((8 - expected.size() % 8) % 8, ' ');
        EXPECT_EQ(bytes.substr(8), expected) << step;
    }
}

TEST(SafetensorsFile, EveryTornPrefixAndAnyExtraByteFailsToLoad) {
    const auto bytes = model_weights_file(42);
    for (std::size_t size = 0; size < bytes.size(); ++size) {
        EXPECT_FALSE(loads_as_safetensors(bytes.substr(0, size))) << size;
    }
    EXPECT_FALSE(loads_as_safetensors(bytes + "x"));
}

TEST(SafetensorsFile, TensorDataMustEndTheFile) {
    const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    std::string bytes(8, '\0');
    bytes[0] = static_cast<char>(header.size());
    EXPECT_TRUE(loads_as_safetensors(bytes + header + "abcd"));
    EXPECT_FALSE(loads_as_safetensors(bytes + header + "abc"));
    const std::string gap = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
    std::string gap_bytes(8, '\0');
    gap_bytes[0] = static_cast<char>(gap.size());
    EXPECT_FALSE(loads_as_safetensors(gap_bytes + gap + "abcdefgh"));
    const std::string bad = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})";
    std::string bad_bytes(8, '\0');
    bad_bytes[0] = static_cast<char>(bad.size());
    EXPECT_FALSE(loads_as_safetensors(bad_bytes + bad));
}

}  // namespace
}  // namespace ckpt::sim::transformers
