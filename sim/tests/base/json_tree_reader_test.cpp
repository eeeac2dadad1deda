// read_simple_json against nlohmann::json::parse: on the simulator's own trainer_state.json texts
// (the fuzz corpus), on random trees dumped compact and indented, on hostile edge cases and on
// random byte edits of real texts, it either declines or gives parse()'s tree with the same value
// type at every node; the simulator's texts are never declined; parse_json_text throws what
// parse() throws. In the python dialect (the default) the reference is json.loads: the checkers'
// test oracle (python_dom), itself held to verdicts and values python3 gave for each edge case.
#include "sim/base/json_tree_reader.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <rapidcheck.h>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/json_same_tree.hpp"
#include "policy/tests/support/random_json.hpp"
#include "sim/tests/checks/json_scanner_oracle.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;
using test::same_json_tree;

// Whether the reader declined or gave nlohmann's tree. A function, not `!read || ...` inside
// RC_ASSERT: RapidCheck's expression capture overloads `||`, which then evaluates both sides
// and dereferenced an empty optional (a use after free under AddressSanitizer, 2026-12-07).
bool read_agrees(const std::optional<json>& read, const json& parsed) {
    return !read || same_json_tree(*read, parsed);
}

// "declined", "error" or the tree's compact text: the reader agrees when it declines or matches.
void expect_strict_agrees(const std::string& text) {
    constexpr auto kStrict = JsonDialect::strict;
    const auto read = read_simple_json(text, kStrict);
    json parsed;
    try {
        parsed = json::parse(text);
    } catch (const json::exception& error) {
        EXPECT_FALSE(read.has_value()) << "read an invalid text: " << text;
        try {
            parse_json_text(text, kStrict);
            ADD_FAILURE() << "parse_json_text read what parse() refuses: " << text;
        } catch (const json::exception& mine) {
            EXPECT_EQ(mine.id, error.id);
            EXPECT_STREQ(mine.what(), error.what());
        }
        EXPECT_FALSE(json_text_is_valid(text, kStrict)) << text;
        return;
    }
    if (text.find('\0') != std::string::npos) {  // nlohmann read up to it; json.loads refuses it
        EXPECT_FALSE(read.has_value()) << text;
        EXPECT_THROW(parse_json_text(text, kStrict), json::parse_error) << text;
        EXPECT_FALSE(json_text_is_valid(text, kStrict)) << text;
        return;
    }
    EXPECT_TRUE(json_text_is_valid(text, kStrict)) << text;
    if (read) {
        EXPECT_TRUE(same_json_tree(*read, parsed)) << text;
    }
    EXPECT_TRUE(same_json_tree(parse_json_text(text, kStrict), parsed)) << text;
}

// The python dialect (the default) against json.loads as the oracle reads it.
void expect_python_agrees(const std::string& text) {
    const auto expected = testing::python_dom(text);
    const auto read = read_simple_json(text);
    if (expected.is_discarded()) {
        EXPECT_FALSE(read.has_value()) << text;
        EXPECT_THROW(parse_json_text(text), json::exception) << text;  // 1e400: out_of_range, as parse()
        EXPECT_TRUE(parse_json_text_or_discarded(text).is_discarded()) << text;
        EXPECT_FALSE(json_text_is_valid(text)) << text;
        return;
    }
    EXPECT_TRUE(json_text_is_valid(text)) << text;
    if (read) {
        EXPECT_TRUE(testing::same_json(*read, expected)) << text;
    }
    EXPECT_TRUE(testing::same_json(parse_json_text(text), expected)) << text;
    EXPECT_TRUE(testing::same_json(parse_json_text_or_discarded(text), expected)) << text;
}

void expect_agrees(const std::string& text) {
    expect_strict_agrees(text);
    expect_python_agrees(text);
}

std::vector<std::string> corpus_trainer_states() {
    std::vector<std::string> texts;
    for (const auto& entry : std::filesystem::directory_iterator(CKPT_FUZZ_CORPUS "/json_scanner")) {
        if (entry.path().filename().string().rfind("trainer_state", 0) == 0) {
            std::ifstream in(entry.path(), std::ios::binary);
            std::ostringstream bytes;
            bytes << in.rdbuf();
            texts.push_back(bytes.str());
        }
    }
    return texts;
}

TEST(JsonTreeReader, ReadsTheSimulatorsOwnTextsAsParseDoes) {
    const auto texts = corpus_trainer_states();
    ASSERT_FALSE(texts.empty());
    for (const auto& text : texts) {
        const auto read = read_simple_json(text);
        ASSERT_TRUE(read.has_value()) << text;
        EXPECT_TRUE(testing::same_json(*read, testing::python_dom(text)));  // a logged NaN among them
    }
}

RC_GTEST_PROP(JsonTreeReader, RandomTreesAgreeWithParse, ()) {
    const json tree = *test::gen_json_value(2);
    for (const int indent : {-1, 2}) {
        std::string text;
        try {
            text = tree.dump(indent, ' ', true);
        } catch (const json::type_error&) {
            return;  // a string that is not UTF-8 has no text
        }
        const auto read = read_simple_json(text);
        const auto parsed = json::parse(text);
        RC_ASSERT(read_agrees(read, parsed));
        RC_ASSERT(same_json_tree(parse_json_text(text), parsed));
    }
}

TEST(JsonTreeReader, EdgeCasesAgreeWithParse) {
    const std::vector<std::string> cases = {"",
                                            " ",
                                            "{",
                                            "}",
                                            "[",
                                            "[1,]",
                                            "{\"a\":1,}",
                                            "{\"a\" 1}",
                                            "{\"a\":1 \"b\":2}",
                                            "01",
                                            "-",
                                            "-0",
                                            "0",
                                            "-0.0",
                                            "1.",
                                            ".5",
                                            "1e",
                                            "1e+",
                                            "1E5",
                                            "1e400",
                                            "-1e400",
                                            "1e-400",
                                            "4.9e-324",
                                            "123456789012345678",
                                            "1234567890123456789",
                                            "-1234567890123456789",
                                            "18446744073709551616",
                                            "tru",
                                            "truex",
                                            "null ",
                                            " [true,false,null] ",
                                            "\"\\n\"",
                                            "\"\\u00e9\"",
                                            "\"\xc3\xa9\"",
                                            "\"\x7f\"",
                                            "\"a\tb\"",
                                            "{\"b\":1,\"a\":2,\"b\":3}",
                                            "{\"a\":1,\"a\":[2]}",
                                            "[1] [2]",
                                            "\xef\xbb\xbf{}",
                                            "{}\x00",
                                            std::string("[1]\0", 4),
                                            std::string("{\"a\":1}\0", 8),
                                            std::string("{\"a\":\"\0\"}", 9),
                                            "[[[[[[[[[[]]]]]]]]]]",
                                            std::string(70, '[') + std::string(70, ']'),
                                            "{\"x\":{\"y\":{}},\"w\":[]}",
                                            "\t\r\n{}\t\r\n",
                                            "1.5e3",
                                            "-2E-2",
                                            "+1",
                                            "0x1",
                                            "NaN",
                                            "Infinity"};
    for (const auto& text : cases) {
        expect_agrees(text);
    }
}

// Python's constants (finding 28): json.loads's verdict on each (the oracle header's list), and
// the values it reads.
TEST(JsonTreeReader, PythonsConstantsAreReadWhereJsonLoadsReadsThem) {
    for (const auto& [text, valid] : testing::python_constant_verdicts()) {
        EXPECT_EQ(parse_json_text_or_discarded(text).is_discarded(), !valid) << text;
        EXPECT_TRUE(parse_json_text_or_discarded(text, JsonDialect::strict).is_discarded()) << text;
        expect_python_agrees(text);
    }
    const double inf = std::numeric_limits<double>::infinity();
    const auto listed = parse_json_text("[NaN,Infinity,-Infinity, 1.5]");
    ASSERT_EQ(listed.size(), 4U);
    EXPECT_TRUE(std::isnan(listed[0].get<double>()));
    EXPECT_EQ(listed[1].get<double>(), inf);
    EXPECT_EQ(listed[2].get<double>(), -inf);
    EXPECT_EQ(listed[3].get<double>(), 1.5);
    // Values, names and strings: valid, valid, refused, and a string's "NaN" stays a string, on
    // the simple reader's path and on nlohmann's (an escape sends the text there).
    const auto object = parse_json_text("{\"a\":NaN,\"b\":\"NaN\",\"c\":\"\\u00e9\",\"d\":-Infinity}");
    EXPECT_TRUE(std::isnan(object["a"].get<double>()));
    EXPECT_EQ(object["b"], "NaN");
    EXPECT_EQ(object["c"], "\xc3\xa9");
    EXPECT_EQ(object["d"].get<double>(), -inf);
    EXPECT_FALSE(read_simple_json("{\"c\":\"\\u00e9\",\"d\":NaN}").has_value());
    EXPECT_TRUE(std::isnan(parse_json_text("{\"c\":\"\\u00e9\",\"d\":NaN}")["d"].get<double>()));
    EXPECT_TRUE(std::isnan(parse_json_text("{\"c\":\"\\\"NaN\",\"d\":NaN}")["d"].get<double>()));
    EXPECT_EQ(parse_json_text("{\"c\":\"\\\"NaN\",\"d\":NaN}")["c"], "\"NaN");
    // The fallback's stand-in digits inside a string change nothing (a review found them refused).
    const auto digits =
        parse_json_text("{\"a\":\"0e-7700000000000000000\",\"g\":NaN,\"h\":1234567890123456789012}");
    EXPECT_EQ(digits["a"], "0e-7700000000000000000");
    EXPECT_TRUE(std::isnan(digits["g"].get<double>()));
    EXPECT_FALSE(json_text_is_valid("{NaN:1}"));
    EXPECT_FALSE(json_text_is_valid("{\"c\":\"\\u00e9\",NaN:1}"));
    EXPECT_THROW(parse_json_text("[NaN]", JsonDialect::strict), json::parse_error);
}

RC_GTEST_PROP(JsonTreeReader, DamagedTextsAgreeWithParse, ()) {
    static const auto texts = corpus_trainer_states();
    RC_PRE(!texts.empty());
    auto text = *rc::gen::elementOf(texts);
    for (int edits = *rc::gen::inRange(1, 4); edits > 0; --edits) {
        const auto at = *rc::gen::inRange<std::size_t>(0, text.size());
        switch (*rc::gen::inRange(0, 3)) {
            case 0:
                text[at] = *rc::gen::arbitrary<char>();
                break;
            case 1:
                text.erase(at, 1);
                break;
            default:
                text.insert(at, 1, *rc::gen::element(',', '"', '}', ']', '0', '.', '-', 'e', ' ', '\\'));
                break;
        }
        if (text.empty()) {
            break;
        }
    }
    const auto read = read_simple_json(text, JsonDialect::strict);
    const auto python = testing::python_dom(text);
    RC_ASSERT(parse_json_text_or_discarded(text).is_discarded() == python.is_discarded());
    RC_ASSERT(python.is_discarded() || testing::same_json(parse_json_text_or_discarded(text), python));
    json parsed;
    try {
        parsed = json::parse(text);
    } catch (const json::exception&) {
        RC_ASSERT(!read.has_value());
        return;
    }
    RC_ASSERT(read_agrees(read, parsed));
}

}  // namespace
}  // namespace ckpt::sim
