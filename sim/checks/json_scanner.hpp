// A validating JSON scanner for the checkers: it accepts exactly the texts nlohmann::json::parse
// accepts (RFC 8259 grammar, UTF-8, escapes and surrogate pairs, a leading BOM, numbers that
// overflow a double refused), with the two differences of Python's json.loads, Transformers' and
// the seed's reader: a text holding a NUL byte, which nlohmann takes for the end of the input, is
// refused, and NaN, Infinity and -Infinity where a value stands are accepted (json.dumps writes a
// logged grad_norm of nan or inf so: finding 28). A sidecar, which the port reads with nlohmann,
// never holds one: the port writes no non-finite number and no damage makes one. It builds no tree and copies
// no string: it only reports where the values of a few named top-level members lie, the last
// occurrence of a name winning as in a parsed object. Independent of the policy's parsers.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::sim {

enum class JsonShape {
    invalid,  // json.loads refuses the text (nlohmann's rules, a NUL byte, Python's constants allowed)
    object,   // valid, and the top level is an object
    other,    // valid, and the top level is an array or a scalar
};

// Validates the whole of `text`. When it is a valid object, values[i] is set to the exact text
// of the last value of top-level member names[i] (a valid JSON document on its own), and stays
// empty when the object has no such member. `values` must be as long as `names`; the names are
// compared with the decoded member names.
JsonShape scan_json(std::string_view text, std::span<const std::string_view> names,
                    std::span<std::string_view> values);
// The same, also telling whether an element of an array starts exactly at offset `watched`.
JsonShape scan_json(std::string_view text, std::span<const std::string_view> names,
                    std::span<std::string_view> values, std::size_t watched, bool& array_element_at_watched);

// A top-level member as the text has it: the decoded name and the exact text of its value.
struct JsonMember {
    std::string name;
    std::string_view value;
};
// Every top-level member of `text`, in the text's order, duplicates included (a parsed object
// keeps the last); nothing when the text is not valid JSON or its top level is not an object.
// For a reader that needs the members' names and kinds, not their values' trees.
std::optional<std::vector<JsonMember>> top_level_members(std::string_view text);
// The same, also telling whether an element of an array starts exactly at offset `watched`.
std::optional<std::vector<JsonMember>> top_level_members(std::string_view text, std::size_t watched,
                                                         bool& array_element_at_watched);

}  // namespace ckpt::sim
