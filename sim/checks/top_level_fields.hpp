// The checkers' reading of a few top-level members of a large JSON document without building
// its tree: the whole text is validated by json_scanner.hpp (which accepts exactly what
// json::parse accepts) and only the named members are kept, whole, last occurrence winning as
// in a parsed object. Depends only on nlohmann/json and the port's FileBytes; never on the
// policy's parsers.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/ports/file_bytes.hpp"

namespace ckpt::sim {

// What json::parse gives for `text`, which must be a valid JSON document with no surrounding
// whitespace (a member's text as json_scanner.hpp locates it). The literals, numbers and strings
// without escapes are built directly, in the types nlohmann's lexer picks (unsigned for a
// non-negative integer, signed for a negative one, else a double); anything else goes through
// the parser.
nlohmann::json parse_member_value(std::string_view text);

// The named members of a document whose top level is an object; nothing when the text is not
// valid JSON or its top level is not an object. A member the document lacks is absent.
std::optional<std::map<std::string, nlohmann::json, std::less<>>> read_top_level_fields(
    std::string_view text, std::initializer_list<std::string_view> names);
// The same for a document held as runs (FileBytes): a long run already seen to be a list of
// array elements, up to where it was last read, is checked only from there, and stands in the
// document as one element when the scan finds an array element's place where it sits (a member
// that holds it is read from the joined text). Anything else is joined and scanned whole. The
// last eight documents read this way are remembered by their runs' buffers and lengths, which
// FileBytes promises are the same bytes, and not scanned again.
std::optional<std::map<std::string, nlohmann::json, std::less<>>> read_top_level_fields(
    const FileBytes& text, std::initializer_list<std::string_view> names);
// The same members' texts, unparsed (each a valid JSON document), for a reader that needs less
// than a member's tree (json_scanner.hpp's top_level_members of one, say).
std::optional<std::map<std::string, std::string, std::less<>>> read_top_level_texts(
    const FileBytes& text, std::initializer_list<std::string_view> names);

}  // namespace ckpt::sim
