#pragma once

// A fast path for nlohmann::json::dump.
//
// Contract: dump_json(value, indent) returns exactly value.dump(indent) (indent -1: compact;
// otherwise that many spaces a level, nlohmann's "key": value layout), and throws what it throws
// (nlohmann's type_error for a string that is not UTF-8). Printable ASCII strings without a quote
// or backslash, integers, booleans and null are written here; doubles through the routine
// nlohmann's dump itself calls (nlohmann::detail::to_chars, so the text is its own, held to dump()
// by the tests); every other string is handed to nlohmann one value at a time; a document holding
// a binary value is dumped by nlohmann whole.
//
// Why: nlohmann's serializer decodes every string byte through its UTF-8 state machine and
// writes through an output adapter; every checkpoint's trainer_state.json goes through it.

#include <string>

#include <nlohmann/json.hpp>

namespace ckpt {

std::string dump_json(const nlohmann::json& value, int indent = -1);

}  // namespace ckpt
