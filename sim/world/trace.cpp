// Trace lines with the envelope keys first, in a fixed order; a detail reusing an envelope key
// is a std::logic_error, never a line with duplicate keys.
#include "sim/world/trace.hpp"

#include <stdexcept>

namespace ckpt::sim {

void Trace::record(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                   const nlohmann::json& details) {
    // Keys are written in a fixed order by hand: nlohmann sorts object keys, which would bury
    // the time and kind in the middle of each line.
    std::string line = "{\"t\":" + std::to_string(time_ms) + ",\"inc\":" + std::to_string(incarnation) +
                       ",\"rank\":" + std::to_string(rank) + ",\"kind\":" + nlohmann::json(kind).dump();
    // A detail named like an envelope key would make a line with duplicate keys, which JSON
    // readers resolve silently: the trace would no longer say what happened.
    for (const char* reserved : {"t", "inc", "rank", "kind"}) {
        if (details.is_object() && details.contains(reserved)) {
            throw std::logic_error(std::string("trace detail uses the reserved key '") + reserved + "'");
        }
    }
    if (details.is_object() && !details.empty()) {
        const auto body = details.dump();
        line += ",";
        line.append(body, 1, body.size() - 1);  // the object's members without its braces
    } else {
        line += "}";
    }
    hash_.update(line);
    hash_.update("\n");
    ++events_;
    if (sink_ != nullptr) {
        sink_->line(line);
    }
    if (keep_lines_) {
        lines_.push_back(std::move(line));
    }
}

}  // namespace ckpt::sim
