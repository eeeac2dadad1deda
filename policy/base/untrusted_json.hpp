#pragma once

// Parsing JSON that came from outside the process (a file, a pipe, a request line) with limits:
// valid UTF-8, no control bytes outside whitespace, nesting at most kMaxJsonDepth, no duplicate
// keys in one object. Every refusal is a MalformedJson naming the document and the byte offset,
// and its message never echoes invalid bytes. Depends on nlohmann::json only.

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/base/errors.hpp"

namespace ckpt {

// Deep enough for every document ckptsim reads (a trainer_state.json nests about 6 levels);
// shallow enough that no recursive walk over a parsed tree can exhaust the stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// A document that is not acceptable JSON. `what()` reads "<document>: <reason>".
class MalformedJson : public ValueError {
  public:
    MalformedJson(const std::string& document, std::string reason);
    const std::string& reason() const noexcept { return reason_; }

  private:
    std::string reason_;
};

struct JsonLimits {
    std::size_t max_depth = kMaxJsonDepth;
    bool reject_duplicate_keys = true;
    // Python's json.loads also reads NaN, Infinity and -Infinity where a value stands, and
    // json.dumps writes a float that is not finite so: Transformers' trainer_state.json holds them
    // when it logged a grad_norm of nan or inf (finding 28). Allowed, they read as null, for a
    // reader that needs no logged number.
    bool python_constants_as_null = false;
};

// Why `text` cannot be handed to the JSON parser (invalid UTF-8, a control byte, nesting beyond
// the limit), or empty when it can. A linear scan with no allocation beyond the answer.
std::string untrusted_json_defect(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// Parses `text`, named `document` in errors. Throws MalformedJson for anything the scan refuses,
// any parse error (including NaN/Infinity tokens unless the limits allow them, and numbers no
// double holds) and, unless the limits allow them, a key repeated within one object.
nlohmann::json parse_untrusted_json(std::string_view text, const std::string& document,
                                    JsonLimits limits = {});

}  // namespace ckpt
