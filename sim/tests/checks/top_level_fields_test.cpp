// read_top_level_fields against nlohmann's DOM parse: the same acceptance (invalid text, a
// non-object top level, a NUL byte) and the same member values, nested and duplicated ones too;
// and trainer_state_names_step, the completeness rule built on it.
#include "sim/checks/top_level_fields.hpp"

#include <string>

#include <gtest/gtest.h>

#include "sim/checks/disk_truth.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// What the DOM parse gives for the same names, or nothing where it refuses the text.
std::optional<std::map<std::string, json, std::less<>>> by_dom(const std::string& text) {
    const auto state = json::parse(text, nullptr, false);
    if (!state.is_object()) {
        return std::nullopt;
    }
    std::map<std::string, json, std::less<>> fields;
    for (const char* name : {"a", "b"}) {
        if (state.contains(name)) {
            fields[name] = state[name];
        }
    }
    return fields;
}

TEST(TopLevelFields, AgreesWithTheDomParse) {
    const std::string documents[] = {
        R"({"a": 1, "x": {"a": 2, "b": [3]}, "b": 2.5})",
        R"({"a": {"k": [1, {"b": null}, "s"], "z": {}}, "b": [[], [true, false]]})",
        R"({"a": 1, "a": "later wins", "b": {"k": 1, "k": 2}})",
        R"({"x": [{"a": 9}], "y": "a"})",
        R"([{"a": 1}])",
        R"({"a": 1)",
        R"({"a": 1} trailing)",
        std::string("{\"a\": 1}\0junk", 13),
        R"({"a": 18446744073709551615, "b": -9223372036854775808})",
        "",
    };
    for (const auto& text : documents) {
        EXPECT_EQ(read_top_level_fields(text, {"a", "b"}), by_dom(text)) << text;
    }
}

TEST(TopLevelFields, KeepsOnlyTheNamedMembers) {
    const auto fields = read_top_level_fields(R"({"a": [1, 2], "c": 3})", {"a"});
    ASSERT_TRUE(fields.has_value());
    EXPECT_EQ(fields->size(), 1U);
    EXPECT_EQ(fields->at("a"), json::array({1, 2}));
}

// Completeness as the checkers define it: an object whose global_step is that integer.
TEST(TopLevelFields, TrainerStateNamesOnlyItsOwnIntegerStep) {
    EXPECT_TRUE(trainer_state_names_step(R"({"x": {"global_step": 4}, "global_step": 5})", 5));
    EXPECT_TRUE(trainer_state_names_step(R"({"global_step": 4, "global_step": 5})", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"global_step": 5, "global_step": 4})", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"global_step": 5.0})", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"global_step": "5"})", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"x": {"global_step": 5}})", 5));
    EXPECT_FALSE(trainer_state_names_step(R"([{"global_step": 5}])", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"global_step": 5)", 5));
    EXPECT_FALSE(trainer_state_names_step(R"({"global_step": 5} x)", 5));
    EXPECT_FALSE(trainer_state_names_step("", 5));
}

}  // namespace
}  // namespace ckpt::sim
