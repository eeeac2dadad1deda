// read_top_level_fields against nlohmann's DOM parse: the same acceptance (invalid text, a
// non-object top level, a NUL byte) and the same member values, nested and duplicated ones too;
// and trainer_state_names_step, the completeness rule built on it.
#include "sim/checks/top_level_fields.hpp"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/checks/disk_truth.hpp"
#include "sim/tests/checks/json_scanner_oracle.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// What the DOM parse gives for the same names, or nothing where it refuses the text.
std::optional<std::map<std::string, json, std::less<>>> by_dom(const std::string& text) {
    const auto state = testing::python_dom(text);
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

// Runs are remembered by their buffers and lengths: a new buffer, a longer prefix of a growing one,
// or a document read again after many others is read for what it holds now, never a stale answer.
TEST(TopLevelFields, RunsAreReadForWhatTheyHoldNow) {
    const auto read_a = [](const FileBytes& bytes) {
        const auto fields = read_top_level_fields(bytes, {"a"});
        return fields && fields->contains("a") ? fields->at("a").dump() : std::string("none");
    };
    const auto run = [](const std::shared_ptr<const std::string>& buffer, std::size_t length) {
        return FileBytes{{buffer, length}};
    };
    auto growing = std::make_shared<std::string>(R"({"a": 1})");
    const FileBytes first = run(growing, growing->size());
    EXPECT_EQ(read_a(first), "1");
    growing->append(R"({"a": 2})");  // its writer only appends: the first run reads as before
    EXPECT_EQ(read_a(first), "1");
    EXPECT_EQ(read_a(run(growing, growing->size())), "none");  // two documents: not JSON
    std::vector<FileBytes> others;
    for (int i = 0; i < 20; ++i) {
        others.emplace_back(std::string(R"({"a": )") + std::to_string(i) + "}");
        EXPECT_EQ(read_a(others.back()), std::to_string(i));
    }
    EXPECT_EQ(read_a(first), "1");
    EXPECT_EQ(read_a(others.front()), "0");
    // Three runs, the middle one a list of array elements, as a trainer_state.json is written.
    auto head = std::make_shared<const std::string>(R"({"a": [)");
    auto entries = std::make_shared<std::string>(std::string(300, ' ') + "{\"loss\": 1}");
    auto tail = std::make_shared<const std::string>("], \"b\": 2}");
    const FileBytes document{{head, head->size()}, {entries, entries->size()}, {tail, tail->size()}};
    const auto whole = read_top_level_fields(document, {"a", "b"});
    EXPECT_EQ(whole, read_top_level_fields(document.str(), {"a", "b"}));
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->at("a"), json::parse(R"([{"loss": 1}])"));
    const auto texts = read_top_level_texts(document, {"b"});
    ASSERT_TRUE(texts.has_value());
    EXPECT_EQ(texts->at("b"), "2");
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
