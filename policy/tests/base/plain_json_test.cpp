// parse_plain_json against nlohmann::json::parse, the parser it stands in for: on every text it
// either declines or gives the same tree, value type for value type (unsigned, signed, double,
// bit-identical doubles); parse_json and parse_json_or_discarded end as nlohmann ends, error
// included. Texts: hand-picked edge cases, random documents and random byte edits of them.
#include "policy/base/plain_json.hpp"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/json_same_tree.hpp"
#include "policy/tests/support/random_json.hpp"

namespace ckpt {
namespace {

using nlohmann::json;
using test::same_json_tree;

// The fast path declines or agrees, and the two entry points end exactly as nlohmann does.
void expect_agrees(const std::string& text) {
    const auto plain = parse_plain_json(text);
    const json discarded = json::parse(text, nullptr, false);
    EXPECT_TRUE(same_json_tree(parse_json_or_discarded(text), discarded)) << text;
    if (plain) {
        EXPECT_FALSE(discarded.is_discarded()) << "accepted invalid JSON: " << text;
        EXPECT_TRUE(same_json_tree(*plain, discarded)) << text;
    }
    std::string expected_error;
    json expected;
    try {
        expected = json::parse(text);
    } catch (const json::exception& error) {
        expected_error = error.what();
    }
    try {
        const json actual = parse_json(text);
        EXPECT_EQ(expected_error, "") << text;
        EXPECT_TRUE(same_json_tree(actual, expected)) << text;
    } catch (const json::exception& error) {
        EXPECT_EQ(std::string(error.what()), expected_error) << text;
    }
}

TEST(PlainJson, TakesTheDocumentsCkptsimWrites) {
    const std::string document = R"({
  "best_metric": null,
  "epoch": 0.2,
  "global_step": 10,
  "log_history": [{"loss": 1.5, "step": 5}],
  "stateful_callbacks": {"TrainerControl": {"args": {"should_save": true}, "attributes": {}}},
  "total_flos": 0.0,
  "negative": -3,
  "tiny": 1e-05
})";
    const auto plain = parse_plain_json(document);
    ASSERT_TRUE(plain.has_value());
    EXPECT_TRUE(same_json_tree(*plain, json::parse(document)));
    EXPECT_TRUE((*plain)["global_step"].is_number_unsigned());
    EXPECT_TRUE((*plain)["negative"].is_number_integer());
    EXPECT_FALSE((*plain)["negative"].is_number_unsigned());
    EXPECT_TRUE((*plain)["total_flos"].is_number_float());
}

TEST(PlainJson, EdgeCasesDeclineOrAgree) {
    const std::vector<std::string> texts = {
        "",
        " ",
        "0",
        "-0",
        "-0.0",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "1E-2",
        "1e400",
        "-1e400",
        "1e-400",
        "5e-324",
        "123456789012345678",
        "1234567890123456789",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "0.1",
        "3.141592653589793238462643383279",
        "true",
        "tru",
        "false ",
        "null x",
        "nul",
        R"("a\"b")",
        R"("\u00e9")",
        "\"caf\xc3\xa9\"",
        "\"tab\there\"",
        "\"unterminated",
        "{\"a\":1,\"a\":2}",
        "{\"a\":1,}",
        "[1,]",
        "[,1]",
        "{,}",
        "{\"a\" 1}",
        "{1:2}",
        "[[[[]]]]",
        std::string(70, '[') + std::string(70, ']'),
        std::string(64, '[') + std::string(64, ']'),
        "\xef\xbb\xbf{}",
        std::string("{}\0", 3),
        std::string("{\"a\0\":1}", 8),
        "{}{}",
        "\t\r\n[ 1 ,\t2 ]\n",
        "[1 2]",
        "\x0c[]",
        "+1",
        "[-]",
        "[1e5, 1E5, 1.5e-3, -2.0E+10]",
    };
    for (const auto& text : texts) {
        expect_agrees(text);
    }
}

TEST(PlainJson, DeclinesWhatItDoesNotDecide) {
    EXPECT_FALSE(parse_plain_json(R"("a\nb")"));
    EXPECT_FALSE(parse_plain_json("\"caf\xc3\xa9\""));
    EXPECT_FALSE(parse_plain_json("12345678901234567890"));
    EXPECT_FALSE(parse_plain_json("1e400"));
    EXPECT_FALSE(parse_plain_json(std::string(70, '[') + std::string(70, ']')));
    EXPECT_FALSE(parse_plain_json("{} x"));
}

RC_GTEST_PROP(PlainJson, RandomDocumentsAgreeWithNlohmann, ()) {
    const json document = *test::gen_json_value(2);
    const int indent = *rc::gen::element(-1, 0, 2);
    const std::string text = document.dump(indent, ' ', false, json::error_handler_t::replace);
    const auto plain = parse_plain_json(text);
    const json expected = json::parse(text);
    if (plain) {
        RC_ASSERT(same_json_tree(*plain, expected));
    }
    RC_ASSERT(same_json_tree(parse_json(text), expected));
}

RC_GTEST_PROP(PlainJson, DamagedDocumentsEndAsNlohmannEnds, ()) {
    const json document = *test::gen_json_value(2);
    std::string text = document.dump(2, ' ', false, json::error_handler_t::replace);
    const int edits = *rc::gen::inRange(1, 4);
    for (int i = 0; i < edits && !text.empty(); ++i) {
        const auto at = *rc::gen::inRange<std::size_t>(0, text.size());
        switch (*rc::gen::inRange(0, 3)) {
            case 0:
                text[at] = *rc::gen::element('"', '\\', ',', ':', '{', '}', '[', ']', '-', '.', 'e', '0', '9',
                                             ' ', '\0', '\x7f', '\x80');
                break;
            case 1:
                text.erase(at, 1);
                break;
            default:
                text.resize(at);
                break;
        }
    }
    const auto plain = parse_plain_json(text);
    const json discarded = json::parse(text, nullptr, false);
    if (plain) {
        RC_ASSERT(!discarded.is_discarded());
        RC_ASSERT(same_json_tree(*plain, discarded));
    }
    RC_ASSERT(same_json_tree(parse_json_or_discarded(text), discarded));
}

}  // namespace
}  // namespace ckpt
