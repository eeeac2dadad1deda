// The protocol's small encodings: --callback-command's word splitting (no shell) and file bytes
// as latin-1 code points, both ways, with every byte value.
#include <gtest/gtest.h>

#include "sim/base/harness_error.hpp"
#include "sim/external/byte_string.hpp"
#include "sim/external/callback_spec.hpp"

namespace ckpt::sim {
namespace {

using Words = std::vector<std::string>;

TEST(CallbackCommandWords, SplitsAsAShellWouldWithoutExpanding) {
    EXPECT_EQ(split_command_words("python3 -m ckptsim_shim serve"),
              (Words{"python3", "-m", "ckptsim_shim", "serve"}));
    EXPECT_EQ(split_command_words(R"(a 'b c' "d \"e\"" f\ g $HOME)"),
              (Words{"a", "b c", "d \"e\"", "f g", "$HOME"}));
    EXPECT_EQ(split_command_words("  x\t y  "), (Words{"x", "y"}));
    EXPECT_EQ(split_command_words("''"), (Words{""}));
}

TEST(CallbackCommandWords, RefusesAnUnbalancedQuoteOrNothing) {
    EXPECT_THROW(split_command_words("python3 'oops"), std::invalid_argument);
    EXPECT_THROW(split_command_words("python3 \"oops"), std::invalid_argument);
    EXPECT_THROW(split_command_words("   "), std::invalid_argument);
    EXPECT_THROW(split_command_words("trailing\\"), std::invalid_argument);
}

TEST(CallbackFileBytes, EveryByteRoundTripsThroughCodePoints) {
    std::string all;
    for (int byte = 0; byte < 256; ++byte) {
        all.push_back(static_cast<char>(byte));
    }
    const auto text = bytes_to_code_points(all);
    EXPECT_EQ(text.size(), 128U + 2U * 128U);
    EXPECT_EQ(code_points_to_bytes(text), all);
}

TEST(CallbackFileBytes, ACharacterAboveLatinOneIsAHarnessError) {
    EXPECT_THROW(code_points_to_bytes("\xE2\x82\xAC"), HarnessError);  // U+20AC
    EXPECT_THROW(code_points_to_bytes("\xC3"), HarnessError);          // a cut sequence
}

}  // namespace
}  // namespace ckpt::sim
