"""Value rules shared by the policy, the sidecar and the callback, as the C++ port applies them.

Contract: restates `policy/python/python_values.*`, `policy/python/evaluation_inputs.*` and
`policy/base/untrusted_json.*` / `policy/formats/trainer_state_probe.*` for Python values.
Every refusal is a `ValueError` with the port's message (the port folds Python's `TypeError`
into its `ValueError`, so this module does too); integers are held to int64, as the port's are.
Pure functions: no I/O, no global state.
"""

import json
import math
from typing import Any, Optional

INT64_MAX = 9223372036854775807
INT64_MIN = -9223372036854775808
STEP_MESSAGE = "checkpoint evaluation step must be a non-negative integer"
# The port's JSON reader refuses documents nested deeper than this (untrusted_json.hpp).
MAX_JSON_DEPTH = 64


def _type_name(value: Any) -> str:
    return type(value).__name__


def _is_int(value: Any) -> bool:
    # A bool is an int in Python but never a JSON integer, so the port treats it apart.
    return isinstance(value, int) and not isinstance(value, bool)


def _ascii_after_strip(text: str) -> Optional[str]:
    # The port parses ASCII literals only; Python's own float()/int() also take non-ASCII digits.
    stripped = text.strip()
    return stripped if stripped.isascii() else None


def to_float(value: Any) -> float:
    """float(value) as the port computes it: booleans, numbers and numeric strings."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            raise ValueError("int too large to convert to float") from None
    if isinstance(value, str):
        text = _ascii_after_strip(value)
        if text is not None and "x" not in text.lower():
            try:
                return float(text)
            except ValueError:
                pass
        raise ValueError("could not convert string to float: " + repr(value))
    if value is not None and not isinstance(value, (list, dict, tuple)) and hasattr(value, "__float__"):
        # A tensor or numpy scalar from a real trainer: the port never sees one, Python float() does.
        return float(value)
    raise ValueError("float() argument must be a string or a real number, not '%s'" % _type_name(value))


def _checked_int64(value: int, shown: str) -> int:
    if value > INT64_MAX or value < INT64_MIN:
        raise ValueError("integer out of range: " + shown)
    return value


def to_int(value: Any) -> int:
    """int(value) as the port computes it, refusing what int64 cannot hold."""
    if isinstance(value, bool):
        return 1 if value else 0
    if _is_int(value):
        return _checked_int64(int(value), str(int(value)))
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError("cannot convert float NaN to integer")
        if math.isinf(value):
            raise ValueError("cannot convert float infinity to integer")
        truncated = math.trunc(value)
        if truncated >= 2**63 or truncated < -(2**63):
            raise ValueError("integer out of range: " + repr(value))
        return int(truncated)
    if isinstance(value, str):
        text = _ascii_after_strip(value)
        body = text[1:] if text and text[0] in "+-" else text
        if body and body.replace("_", "").isdigit() and "__" not in body and not body.startswith("_") \
                and not body.endswith("_"):
            return _checked_int64(int(text), value.strip())
        raise ValueError("invalid literal for int() with base 10: " + repr(value))
    if value is not None and hasattr(type(value), "__index__"):
        return _checked_int64(int(value.__index__()), str(value))
    raise ValueError(
        "int() argument must be a string, a bytes-like object or a real number, not '%s'" % _type_name(value))


def truthy(value: Any) -> bool:
    return bool(value)


def equals_int(value: Any, expected: int) -> bool:
    """Python's `value == expected` for a JSON value (1 == 1.0 == True); never for a string."""
    if isinstance(value, (bool, int, float)):
        return value == expected
    return False


def to_str(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def check_finite_score(score: float) -> float:
    if not math.isfinite(score):
        raise ValueError("checkpoint evaluation score must be finite, got " + repr(score))
    return score


def coerce_finite_score(score: Any) -> float:
    """float(score), then finite; the messages quote repr() of the input, as the port's do."""
    try:
        value = to_float(score)
    except ValueError:
        raise ValueError("checkpoint evaluation score must be numeric, got " + repr(score)) from None
    if not math.isfinite(value):
        raise ValueError("checkpoint evaluation score must be finite, got " + repr(score))
    return value


def coerce_step(step: Any) -> int:
    """Integers and integral floats that are steps (0 <= step < 2**63); never a bool or a string."""
    if _is_int(step) or (not isinstance(step, (bool, float, str)) and step is not None
                         and hasattr(type(step), "__index__")):
        value = int(step.__index__()) if not _is_int(step) else int(step)
        if 0 <= value <= INT64_MAX:
            return value
        raise ValueError(STEP_MESSAGE)
    if isinstance(step, float) and math.isfinite(step) and step == math.trunc(step) and 0.0 <= step < 2.0**63:
        return int(step)
    raise ValueError(STEP_MESSAGE)


def check_step(step: int) -> int:
    if step < 0:
        raise ValueError(STEP_MESSAGE)
    return step


def dump_compact(value: Any) -> str:
    """nlohmann's compact dump(), which the port's messages embed (no spaces)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# ---- JSON as the port reads it ----------------------------------------------------------------

class MalformedJson(ValueError):
    """A document the port's untrusted reader refuses: '<document>: <reason>'."""


def _refuse_constant(name: str) -> Any:
    raise ValueError("invalid literal " + name)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError("number out of range " + text)  # nlohmann refuses what no double holds
    return value


def _has_lone_surrogate(value: Any) -> bool:
    # Python's decoder keeps a lone \ud800 escape, nlohmann refuses it; a valid pair decodes to
    # one code point, so a surrogate left in a string was a lone escape.
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    return False


def _decode_text(data: Any) -> str:
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    # nlohmann skips a byte-order mark where Python's json refuses it.
    return text[1:] if text.startswith("\ufeff") else text


def parse_lenient_json(data: Any) -> Any:
    """nlohmann::json::parse(text, nullptr, false): the value, or None when the text is invalid.

    Duplicate keys keep the last value, as nlohmann and Python both do. Used where the port
    reads a trainer_state.json (probe, records_best, own-state restore). NaN, Infinity and
    -Infinity are read, as the port's probe reads them: json.dumps writes a logged grad_norm of
    nan or inf so, and Transformers reads it back (finding 28).
    """
    try:
        text = _decode_text(data)
        value = json.loads(text, parse_float=_finite_float)
    except (ValueError, RecursionError):
        return _INVALID
    return _INVALID if _has_lone_surrogate(value) else value


# A distinct marker: JSON null is a valid document, "discarded" is not.
_INVALID = object()


def is_invalid(value: Any) -> bool:
    return value is _INVALID


def _depth_or_control_defect(text: str) -> Optional[str]:
    depth = 0
    in_string = False
    index = 0
    while index < len(text):
        c = text[index]
        if ord(c) < 0x20 and c not in "\t\n\r":
            return "control character %d" % ord(c)
        if in_string:
            if c == "\\":
                index += 2
                continue
            in_string = c != '"'
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return "nesting deeper than %d levels" % MAX_JSON_DEPTH
        elif c in "}]" and depth > 0:
            depth -= 1
        index += 1
    return None


def _no_duplicates(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise MalformedJson("duplicate key " + json.dumps(key))
        seen[key] = value
    return seen


def parse_untrusted_json(data: Any, document: str) -> Any:
    """parse_untrusted_json: valid UTF-8, no control bytes, depth <= 64, no duplicate keys."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    except UnicodeDecodeError:
        raise MalformedJson(document + ": invalid UTF-8") from None
    defect = _depth_or_control_defect(text)
    if defect is not None:
        raise MalformedJson(document + ": " + defect)
    try:
        value = json.loads(_decode_text(text), object_pairs_hook=_no_duplicates,
                           parse_constant=_refuse_constant, parse_float=_finite_float)
    except MalformedJson as error:
        raise MalformedJson(document + ": " + str(error)) from None
    except (ValueError, RecursionError) as error:
        raise MalformedJson(document + ": not valid JSON: " + str(error)) from None
    if _has_lone_surrogate(value):
        raise MalformedJson(document + ": not valid JSON: a lone UTF-16 surrogate")
    return value


def probe_global_step(data: Any) -> Optional[int]:
    """The top-level integer global_step of a valid trainer_state.json, else None."""
    document = parse_lenient_json(data)
    if not isinstance(document, dict):
        return None
    step = document.get("global_step")
    if _is_int(step) and INT64_MIN <= step <= INT64_MAX:
        return step
    return None
