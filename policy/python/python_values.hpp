// Python's float(), int(), bool(), str(), repr() and strip() over JSON values, so state files and
// the `ckptsim policy` protocol answer exactly as the seed does, awkward inputs included. Every
// failure is a ckpt::ValueError with Python's message. Pure functions; depends on base/ only.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace ckpt::python {

// The seed is Python and coerces JSON payloads with float(), int(), bool() and str(); its error
// messages embed repr(). Payloads arrive here as JSON values, so these functions reproduce
// those built-ins on JSON values. That keeps state files and the `ckptsim policy` protocol
// answering exactly as the seed does, including for awkward inputs such as "3" or 3.0.
// Every failure is a ckpt::ValueError (the seed's TypeError and ValueError alike).

// str.strip(): Python's whitespace, which is wider than C's: the ASCII separators \x1c-\x1f
// and the Unicode spaces (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000) as well. `text` is UTF-8.
std::string_view strip(std::string_view text);

// float(x): numbers, booleans and numeric strings ("1.5", " inf ", "1_000"); anything else
// throws with Python's own message.
double to_float(const nlohmann::json& value);
// int(x): integers, booleans, finite floats (truncated) and integer strings. Values outside
// int64 are rejected: nothing in a checkpoint state can legitimately be that large.
std::int64_t to_int(const nlohmann::json& value);
// bool(x): Python truthiness.
bool truthy(const nlohmann::json& value);
// str(x) and repr(x) of the Python object that json.loads would have produced.
std::string str(const nlohmann::json& value);
std::string repr(const nlohmann::json& value);
// repr of a float: shortest round-trip digits, "1.0", "1e+16", "nan", "-inf".
std::string float_repr(double value);
// Python's `a == b` for a JSON value against an int (1 == 1.0 == True).
bool equals_int(const nlohmann::json& value, std::int64_t expected);

}  // namespace ckpt::python
