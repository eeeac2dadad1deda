// json_text.hpp against nlohmann's own dump(): random trees (every value type, strings of any
// bytes, nested and empty containers) and edge cases (non-finite doubles, the extremes, escapes,
// binary and discarded values) give the same bytes compact and at several indents, with and
// without ensure_ascii, and a string nlohmann refuses throws the same error. trainer_state.json's bytes and
// the trace hash therefore cannot depend on which of the two wrote them.
#include "sim/base/json_text.hpp"

#include <cstdint>
#include <limits>
#include <rapidcheck.h>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/random_json.hpp"

namespace ckpt::sim {
namespace {

using nlohmann::json;

// The bytes dump() gives, or its error's text when it throws.
std::string nlohmann_text(const json& value, int indent, bool ensure_ascii) {
    try {
        return value.dump(indent, ' ', ensure_ascii);
    } catch (const json::exception& error) {
        return std::string("error: ") + error.what();
    }
}

std::string our_text(const json& value, int indent, bool ensure_ascii) {
    try {
        if (indent < 0) {
            std::string out;
            append_json_value(out, value);
            return out;
        }
        return dump_indented_json(value, indent, ensure_ascii);
    } catch (const json::exception& error) {
        return std::string("error: ") + error.what();
    }
}

RC_GTEST_PROP(JsonText, EveryLayoutIsDumpsOwnBytes, ()) {
    const json value = *test::gen_json_value(2);
    RC_ASSERT(our_text(value, -1, false) == nlohmann_text(value, -1, false));
    for (const int indent : {0, 2, 4}) {
        for (const bool ensure_ascii : {false, true}) {
            RC_ASSERT(our_text(value, indent, ensure_ascii) == nlohmann_text(value, indent, ensure_ascii));
        }
    }
}

TEST(JsonText, EdgeCasesAreDumpsOwnBytes) {
    const std::vector<json> cases = {
        json::object(),
        json::array(),
        json{{"a", json::object()}, {"b", json::array()}, {"c", {1, 2.5, "x"}}},
        json{{"\xc3\xa9", "\x7f"}, {"k", "\x01"}},
        json::binary({1, 2, 3}),
        json{{"nested", {{"bin", json::binary({4, 5}, 7)}}}},
        json{{"bad", "\xff"}},
        json(json::value_t::discarded),
        json{{"weights", {{"dtype", "F32"}, {"shape", {2, 3}}}}},
        json{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
             -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min(), -0.0, 1e21,
             0.1, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::uint64_t>::max()},
        json{{"tab\there", "q\"uote"}, {"back\\slash", "del\x7f"}, {"eight ch", "nine char"}, {"", "\x01"}},
    };
    for (const auto& value : cases) {
        EXPECT_EQ(our_text(value, -1, false), nlohmann_text(value, -1, false)) << value.dump(-1, ' ', true);
        for (const int indent : {0, 2}) {
            for (const bool ensure_ascii : {false, true}) {
                EXPECT_EQ(our_text(value, indent, ensure_ascii), nlohmann_text(value, indent, ensure_ascii));
            }
        }
    }
}

TEST(JsonText, PlainStringsAreThoseDumpLeavesUnchanged) {
    for (int byte = 0; byte < 256; ++byte) {
        const std::string text(9, static_cast<char>(byte));
        const bool plain = is_plain_json_string(text);
        if (plain) {
            EXPECT_EQ(json(text).dump(-1, ' ', true), "\"" + text + "\"") << byte;
        }
        EXPECT_EQ(plain, byte >= 0x20 && byte < 0x7f && byte != '"' && byte != '\\') << byte;
    }
}

}  // namespace
}  // namespace ckpt::sim
