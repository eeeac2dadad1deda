// JSON text in exactly the bytes nlohmann's dump() gives for the same value, without building a
// json per value or going through nlohmann's serializer: the trace's lines (compact) and the
// simulated Transformers' trainer_state.json (indent 2, ASCII-escaped) are written here, so a
// trace hash or a file's bytes cannot depend on which of the two wrote them. Plain printable ASCII
// strings (no quote, backslash or DEL), integers, booleans and null are written here; doubles
// through the routine dump() itself calls; every other string goes through nlohmann one value at a
// time (its escapes, its UTF-8 checks and its exception). Depends on nlohmann only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt::sim {

// True when dump() writes `text` between quotes unchanged (printable ASCII, no '"' or '\\').
bool is_plain_json_string(std::string_view text) noexcept;

// Appends `value` as a JSON string, in exactly the bytes dump() gives for it (ensure_ascii as
// dump's own flag), and throws where it throws.
void append_json_string(std::string& out, std::string_view value, bool ensure_ascii = false);
// Appends `value` in exactly the bytes nlohmann's dump() (compact) gives for it.
void append_json_number(std::string& out, double value);
void append_json_value(std::string& out, const nlohmann::json& value);
// An integer's digits (std::to_string's, without its temporary), as dump() writes them.
void append_json_integer(std::string& out, std::int64_t value);
void append_json_unsigned(std::string& out, std::uint64_t value);

// A nan or an infinity as Python's json.dumps writes it (NaN, Infinity, -Infinity), where dump()
// writes null; Transformers' save_to_json writes a logged grad_norm of nan or inf so (finding 28).
// Throws std::invalid_argument for a finite value.
void append_python_constant(std::string& out, double value);

// How dump_indented_json writes a nan or an infinity: as dump() does, or as json.dumps does.
enum class NonFinite { null, python_constants };

// value.dump(indent, ' ', ensure_ascii) for indent >= 0, byte for byte (a document holding a
// binary value, whose layout nlohmann ties to its depth, is dumped by nlohmann whole), except that
// with python_constants a nan or an infinity is written as append_python_constant writes it.
std::string dump_indented_json(const nlohmann::json& value, int indent, bool ensure_ascii,
                               NonFinite non_finite = NonFinite::null);

}  // namespace ckpt::sim
