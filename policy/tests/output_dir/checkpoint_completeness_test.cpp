// why_checkpoint_is_incomplete names the first check that fails, reading trainer_state.json as
// Transformers' json.loads does: Python's NaN, Infinity and -Infinity (a logged grad_norm of nan or
// inf, finding 28) are no torn write.
#include "policy/output_dir/checkpoint_completeness.hpp"

#include <string>

#include <gtest/gtest.h>

#include "policy/tests/support/in_memory_file_system.hpp"

namespace ckpt {
namespace {

std::string trainer_state(const std::string& global_step, const std::string& grad_norm) {
    return "{\n  \"global_step\": " + global_step +
           ",\n  \"log_history\": [\n    {\n      \"grad_norm\": " + grad_norm +
           ",\n      \"step\": 5\n    }\n  ]\n}\n";
}

std::string reason(const std::string& text) {
    InMemoryFileSystem fs;
    make_dirs(fs, "/out/checkpoint-500");
    fs.write_file("/out/checkpoint-500/trainer_state.json", text);
    return why_checkpoint_is_incomplete(fs, "/out", 500);
}

TEST(CheckpointCompleteness, ALoggedNanIsNoTornWriteInTheReason) {
    for (const std::string constant : {"NaN", "Infinity", "-Infinity"}) {
        EXPECT_EQ(reason(trainer_state("400", constant)),
                  "trainer_state.json records global_step 400, not 500 (the directory was renamed or copied)")
            << constant;
        EXPECT_EQ(reason(trainer_state("\"500\"", constant)), "trainer_state.json has no integer global_step")
            << constant;
    }
    // Glued to a digit, json.loads refuses it too.
    EXPECT_EQ(reason(trainer_state("400", "NaN5")), "trainer_state.json is not valid JSON (a torn write)");
    EXPECT_EQ(reason(trainer_state("400", "0.5")),
              "trainer_state.json records global_step 400, not 500 (the directory was renamed or copied)");
}

}  // namespace
}  // namespace ckpt
