// The simulated torch.save's pytorch_model.bin: a zip archive that loads whole and never torn,
// accepted by the port's weights check exactly when the simulated torch.load accepts it.
#include "sim/trainer/torch_zip_file.hpp"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "policy/output_dir/model_weights.hpp"

namespace ckpt::sim::transformers {
namespace {

TEST(TorchZipFile, LoadsWholeAndNamesItsStep) {
    for (const std::int64_t step : {0, 7, 123456789}) {
        const auto bytes = pickled_weights_file(step);
        EXPECT_NE(bytes.find("weights@" + std::to_string(step)), std::string::npos);
        EXPECT_TRUE(loads_as_torch_zip(bytes)) << step;
        EXPECT_TRUE(is_whole_zip_archive(bytes)) << step;
    }
}

// Both ways a torn power loss leaves a write (sim/disk): cut short, or zero-filled past the cut.
TEST(TorchZipFile, NoTornCopyLoadsAndThePortAgreesOnEach) {
    const auto bytes = pickled_weights_file(42);
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        for (const auto& torn :
             {bytes.substr(0, cut), bytes.substr(0, cut) + std::string(bytes.size() - cut, '\0')}) {
            if (torn == bytes) {
                continue;  // the zeros it wrote were already there: nothing was lost
            }
            EXPECT_FALSE(loads_as_torch_zip(torn)) << cut;
            EXPECT_EQ(is_whole_zip_archive(torn), loads_as_torch_zip(torn)) << cut;
        }
    }
    EXPECT_FALSE(loads_as_torch_zip(bytes + "x"));
}

}  // namespace
}  // namespace ckpt::sim::transformers
