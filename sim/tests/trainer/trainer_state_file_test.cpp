// trainer_state.json as TrainerState.save_to_json writes it: two-space indent, sorted keys,
// ASCII escapes and a final newline; and load_from_json failing on a torn text.
#include "sim/trainer/trainer_state_file.hpp"

#include <gtest/gtest.h>

namespace ckpt::sim::transformers {
namespace {

TEST(TrainerStateFile, WritesJsonDumpsLayout) {
    const nlohmann::json state = {{"global_step", 4},
                                  {"epoch", 0.5},
                                  {"best_model_checkpoint", nullptr},
                                  {"stateful_callbacks", {{"TrainerControl", {{"args", {{"é", true}}}}}}}};
    EXPECT_EQ(trainer_state_text(state),
              "{\n"
              "  \"best_model_checkpoint\": null,\n"
              "  \"epoch\": 0.5,\n"
              "  \"global_step\": 4,\n"
              "  \"stateful_callbacks\": {\n"
              "    \"TrainerControl\": {\n"
              "      \"args\": {\n"
              "        \"\\u00e9\": true\n"
              "      }\n"
              "    }\n"
              "  }\n"
              "}\n");
}

TEST(TrainerStateFile, LoadReadsWhatWasWrittenAndRefusesATornText) {
    const nlohmann::json state = {{"global_step", 12}, {"log_history", nlohmann::json::array()}};
    const auto text = trainer_state_text(state);
    EXPECT_EQ(load_trainer_state(text), state);
    EXPECT_THROW(load_trainer_state(""), nlohmann::json::parse_error);
    EXPECT_THROW(load_trainer_state(text.substr(0, text.size() / 2)), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace ckpt::sim::transformers
