// The detail members of one trace line, written straight to text in the bytes nlohmann's dump()
// gives for the same object, so the trace hash does not depend on which of the two wrote a line.
// nlohmann sorts an object's keys; here the caller adds them in that ascending order, and a key
// out of order (or repeated), or one of the envelope's keys (t, inc, rank, kind) at any depth, is a
// std::logic_error, never a different line. Doubles and strings that need escaping are formatted
// by nlohmann itself; everything else is plain text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/base/json_text.hpp"

namespace ckpt::sim {

class TraceFields {
  public:
    TraceFields& null(std::string_view key);
    TraceFields& integer(std::string_view key, std::int64_t value);
    TraceFields& integer_or_null(std::string_view key, std::optional<std::int64_t> value);
    TraceFields& number(std::string_view key, double value);
    TraceFields& number_or_null(std::string_view key, std::optional<double> value);
    TraceFields& boolean(std::string_view key, bool value);
    TraceFields& string(std::string_view key, std::string_view value);
    TraceFields& object(std::string_view key, const TraceFields& members);
    // A member whose value is already JSON text in the compact bytes dump() gives for it.
    TraceFields& raw(std::string_view key, std::string_view json_text);

    // "k":v,... without braces; empty when nothing was added.
    const std::string& members() const noexcept { return text_; }

  private:
    static constexpr std::size_t kTypicalSize = 256;  // the members of the longest hot lines fit

    void open_member(std::string_view key);
    std::string_view last_key() const noexcept;

    std::string text_;
    // The previous key: where it stands in text_ when written plain, else (escaped) a copy.
    std::size_t last_key_at_ = 0;
    std::size_t last_key_size_ = 0;
    std::string last_key_;
};

}  // namespace ckpt::sim
