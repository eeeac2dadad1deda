// Trace lines with the envelope keys first, in a fixed order; a detail reusing an envelope key
// is a std::logic_error, never a line with duplicate keys.
#include "sim/world/trace.hpp"

#include <stdexcept>

namespace ckpt::sim {
namespace {}  // namespace

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
        std::string body;
        append_json_value(body, details);
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
    // the time and kind in the middle of each line. One buffer, reused by every line of the run
    // (clear() keeps its capacity), and the kind is quoted as dump() would (TraceFields' rule for
    // plain text).
    using namespace std::string_view_literals;
    std::string& line = line_;
    line.clear();
    line += "{\"t\":"sv;
    append_json_integer(line, time_ms);
    line += ",\"inc\":"sv;
    append_json_integer(line, incarnation);
    line += ",\"rank\":"sv;
    append_json_integer(line, rank);
    line += ",\"kind\":"sv;
    append_json_string(line, kind);
    if (!members.empty()) {
        line += ',';
        line += members;
    }
    line += "}\n"sv;
    hash_.update(line);  // the line and its '\n' in one pass, as two updates would hash them
    line.pop_back();
    ++events_;
    if (sink_ != nullptr) {
        sink_->line(line);
    }
    if (keep_lines_) {
        lines_.push_back(line);
    }
}

}  // namespace ckpt::sim
