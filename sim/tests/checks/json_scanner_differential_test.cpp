// scan_json and read_top_level_fields against nlohmann over real texts and thousands of damaged
// copies: the fuzz corpora (real trainer_state.json and sidecar bytes the simulator wrote, and the
// hostile seeds of the other targets) each edited by truncation, byte and bit flips, insertions,
// deletions, zero-fill, duplicated spans, invalid UTF-8, bad escapes, number overflows and deep
// nesting. Seeded by the project's own PRNG, so a failure names a reproducible case.
#include <string>

#include <gtest/gtest.h>

#include "sim/tests/checks/json_damage.hpp"
#include "sim/tests/checks/json_scanner_oracle.hpp"

namespace ckpt::sim {
namespace {

using testing::corpus_texts;
using testing::edit;
using testing::scanner_disagreement;

TEST(JsonScannerDifferential, AgreesWithNlohmannOnTheCorpus) {
    const auto texts = corpus_texts();
    ASSERT_GE(texts.size(), 20U);
    for (const auto& text : texts) {
        EXPECT_EQ(scanner_disagreement(text), "") << text.substr(0, 200);
    }
}

TEST(JsonScannerDifferential, AgreesWithNlohmannOnDamagedCopies) {
    const auto texts = corpus_texts();
    Rng rng(0x5ca77e5);
    int refused = 0;
    int accepted = 0;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        for (int copy = 0; copy < 800; ++copy) {
            std::string text = texts[t];
            const auto edits = 1 + rng.below(3);
            for (std::uint64_t i = 0; i < edits; ++i) {
                edit(rng, text);
            }
            const auto disagreement = scanner_disagreement(text);
            ASSERT_EQ(disagreement, "") << "text " << t << " copy " << copy << ": " << text.substr(0, 300);
            (nlohmann::json::accept(text) ? accepted : refused) += 1;
        }
    }
    // Both verdicts must be well represented, or the edits test only one side of the scanner.
    EXPECT_GT(accepted, 1000);
    EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace ckpt::sim
