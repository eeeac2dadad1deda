// Trace lines with the envelope keys first, in a fixed order; a detail reusing an envelope key
// is a std::logic_error, never a line with duplicate keys.
#include "sim/world/trace.hpp"

#include <stdexcept>

namespace ckpt::sim {

void Trace::record(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                   const nlohmann::json& details) {
    // A detail named like an envelope key would make a line with duplicate keys, which JSON
    // readers resolve silently: the trace would no longer say what happened.
    for (const char* reserved : {"t", "inc", "rank", "kind"}) {
        if (details.is_object() && details.contains(reserved)) {
            throw std::logic_error(std::string("trace detail uses the reserved key '") + reserved + "'");
        }
    }
    if (details.is_object() && !details.empty()) {
        const auto body = details.dump();
        write_line(time_ms, incarnation, rank, kind, std::string_view(body).substr(1, body.size() - 2));
    } else {
        write_line(time_ms, incarnation, rank, kind, {});
    }
}

void Trace::record(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                   const TraceFields& details) {
    write_line(time_ms, incarnation, rank, kind, details.members());
}

void Trace::write_line(std::int64_t time_ms, int incarnation, int rank, std::string_view kind,
                       std::string_view members) {
    // Keys are written in a fixed order by hand: nlohmann sorts object keys, which would bury
    // the time and kind in the middle of each line.
    std::string line = "{\"t\":" + std::to_string(time_ms) + ",\"inc\":" + std::to_string(incarnation) +
                       ",\"rank\":" + std::to_string(rank) + ",\"kind\":" + nlohmann::json(kind).dump();
    if (!members.empty()) {
        line += ",";
        line += members;
    }
    line += "}";
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
