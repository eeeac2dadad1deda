// TraceFields against nlohmann's own dump(): for random objects (integers at the extremes,
// doubles including non-finite ones, booleans, nulls, strings of arbitrary bytes, nested
// objects) the members text is exactly what nlohmann writes between the braces, so a trace
// line's bytes, and with them the trace hash, cannot depend on which of the two wrote it.
#include "sim/world/trace_fields.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <rapidcheck.h>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>

namespace ckpt::sim {
namespace {

using nlohmann::json;

// "t", "inc", "rank" and "kind" are the envelope's, refused at any depth (tested below).
void erase_envelope_keys(std::set<std::string>& keys) {
    for (const char* reserved : {"t", "inc", "rank", "kind"}) {
        keys.erase(reserved);
    }
}

// One random member value, written into both the reference object and the fields under test.
void add_random_member(TraceFields& fields, json& reference, const std::string& key, int depth) {
    const int kind = *rc::gen::inRange(0, depth > 0 ? 8 : 7);
    switch (kind) {
        case 0: {
            const auto value = *rc::gen::element(std::numeric_limits<std::int64_t>::min(), std::int64_t{-1},
                                                 std::int64_t{0}, std::numeric_limits<std::int64_t>::max(),
                                                 *rc::gen::arbitrary<std::int64_t>());
            fields.integer(key, value);
            reference[key] = value;
            break;
        }
        case 1: {
            const auto value = *rc::gen::element(
                0.1, 1.0, -0.0, 1e-5, 1e21, 123456789.125, std::numeric_limits<double>::quiet_NaN(),
                std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min(),
                *rc::gen::arbitrary<double>());
            fields.number(key, value);
            reference[key] = value;
            break;
        }
        case 2: {
            const bool value = *rc::gen::arbitrary<bool>();
            fields.boolean(key, value);
            reference[key] = value;
            break;
        }
        case 3:
            fields.null(key);
            reference[key] = nullptr;
            break;
        case 4: {
            const auto value = *rc::gen::arbitrary<bool>()
                                   ? std::optional(*rc::gen::arbitrary<std::int64_t>())
                                   : std::nullopt;
            fields.integer_or_null(key, value);
            reference[key] = value ? json(*value) : json();
            break;
        }
        case 5: {
            const auto value =
                *rc::gen::arbitrary<bool>() ? std::optional(*rc::gen::arbitrary<double>()) : std::nullopt;
            fields.number_or_null(key, value);
            reference[key] = value ? json(*value) : json();
            break;
        }
        case 6: {
            // Printable text, control characters, quotes, backslashes and UTF-8 (valid or not).
            const auto value = *rc::gen::oneOf(rc::gen::string<std::string>(),
                                               rc::gen::container<std::string>(rc::gen::element(
                                                   'a', '"', '\\', '\n', '\t', '\x01', '\x1f', '\x7f', '/',
                                                   '\xc3', '\xa9', '\xe2', '\x82', '\xac')));
            const json as_json = value;
            bool dumpable = true;
            try {
                (void)as_json.dump();
            } catch (const json::exception&) {
                dumpable = false;
            }
            if (dumpable) {
                fields.string(key, value);
                reference[key] = value;
            } else {
                // Refused whole: no half member is left, and the next key may follow.
                const auto before = fields.members();
                RC_ASSERT_THROWS_AS(fields.string(key, value), json::exception);
                RC_ASSERT(fields.members() == before);
            }
            break;
        }
        default: {
            TraceFields nested;
            json nested_reference = json::object();
            auto keys = *rc::gen::container<std::set<std::string>>(
                rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange('a', 'z'))));
            erase_envelope_keys(keys);
            for (const auto& nested_key : keys) {
                add_random_member(nested, nested_reference, nested_key, depth - 1);
            }
            fields.object(key, nested);
            reference[key] = nested_reference;
        }
    }
}

RC_GTEST_PROP(TraceFields, WritesExactlyNlohmannsCompactDump, ()) {
    // Keys as a set: ascending and unique, the order TraceFields requires.
    auto keys = *rc::gen::container<std::set<std::string>>(rc::gen::container<std::string>(
        rc::gen::element('a', 'b', 'k', 'r', 's', 't', '_', 'Z', '\xc3', '\xa9', '"')));
    erase_envelope_keys(keys);
    TraceFields fields;
    json reference = json::object();
    for (const auto& key : keys) {
        json key_json = key;
        try {
            (void)key_json.dump();
        } catch (const json::exception&) {
            continue;  // a key that is not UTF-8 cannot be written by either
        }
        add_random_member(fields, reference, key, 2);
    }
    const auto dumped = reference.dump();
    RC_ASSERT(fields.members() == dumped.substr(1, dumped.size() - 2));
}

TEST(TraceFields, RefusesKeysOutOfOrderRepeatedOrReserved) {
    TraceFields fields;
    fields.integer("step", 1);
    EXPECT_THROW(fields.integer("score", 2), std::logic_error);
    EXPECT_THROW(fields.integer("step", 2), std::logic_error);
    for (const char* reserved : {"t", "inc", "rank", "kind"}) {
        EXPECT_THROW(TraceFields().boolean(reserved, true), std::logic_error) << reserved;
    }
}

TEST(TraceFields, EmptyFieldsHaveNoMembers) {
    EXPECT_EQ(TraceFields().members(), "");
    EXPECT_EQ(TraceFields().object("state", TraceFields()).members(), R"("state":{})");
}

}  // namespace
}  // namespace ckpt::sim
