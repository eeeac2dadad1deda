// Renders parsed trace lines as text: "#n  time  inc | r0 r1 ... | what happened".
#include "sim/cli/trace_text.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

#include "sim/cli/trace_lines.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

std::string num(const json& j) {
    if (j.is_null()) {
        return "none";
    }
    if (j.is_number_float()) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.4g", j.get<double>());
        return buffer;
    }
    return j.is_string() ? j.get<std::string>() : j.dump();
}

std::string describe_state(const json& s) {
    std::string text =
        "best " + num(s.value("best_score", json())) + " @ step " + num(s.value("best_step", json()));
    if (s.value("best_is_external", false)) {
        text += " (external)";
    }
    text += ", streak " + num(s.value("streak", json())) + ", " + num(s.value("evaluations", json())) +
            " evaluations";
    return s.value("stop_requested", false) ? text + ", stop requested" : text;
}

// What a job-level line means for every rank's column; empty when it concerns no rank.
std::string all_ranks_cell(const std::string& kind) {
    if (kind == "start")
        return "up";
    if (kind == "resume" || kind == "restored")
        return "resume";
    if (kind == "hang" || kind == "watchdog")
        return "HANG";
    if (kind == "power_loss" || kind == "preemption" || kind == "job_died")
        return "down";
    if (kind == "violation")
        return "!!";
    return {};
}

// Faults and the ways an incarnation ends, in words; empty for other kinds.
std::string describe_job_end(const TraceLine& l) {
    const auto& j = l.line;
    const auto& k = l.kind;
    const auto field = [&j](const char* key) { return num(j.value(key, json())); };
    if (k == "power_loss")
        return "power lost (" + field("mode") + "): " + field("kept") + " pending writes kept, " +
               field("torn") + " torn, " + field("pending") + " pending";
    if (k == "watchdog")
        return "watchdog ends the hung job: " + field("hang");
    if (k == "preemption")
        return "job preempted after " + field("after");
    if (k == "io_error")
        return "I/O error injected on " + field("target") + " of " + field("path");
    if (k == "corrupt")
        return "corruption injected into " +
               (j.contains("path") ? field("path") : "checkpoint-" + field("checkpoint"));
    if (k == "remove_incomplete")
        return "rank 0 removes incomplete " + field("checkpoint");
    if (k == "job_died")
        return "the job dies: " + field("dead_ranks") + " dead ranks";
    if (k == "job_failed")
        return "the job fails: " + field("error");
    return {};
}

std::string describe(const TraceLine& l) {
    const auto& j = l.line;
    const auto& k = l.kind;
    if (k == "scenario")
        return "scenario seed " + num(j.value("seed", json())) + ", " + num(j.value("ranks", json())) +
               " ranks, max_steps " + num(j.value("max_steps", json()));
    if (k == "start")
        return "incarnation " + std::to_string(l.incarnation) + " starts " +
               (j.value("resume_step", json()).is_null() ? "fresh"
                                                         : "resuming at step " + num(j["resume_step"]));
    if (k == "resume")
        return "Transformers resumes from " + num(j.value("checkpoint", json())) +
               (j.value("complete", false) ? " (complete)" : " (INCOMPLETE)");
    if (k == "restored")
        return "policy restored from " + num(j.value("source", json())) + ": " +
               describe_state(j.value("state", json::object()));
    if (k == "evaluation")
        return "step " + num(j.value("step", json())) + ": score " + num(j.value("score", json())) + " -> " +
               num(j.value("reason", json())) + (j.value("stop", false) ? ", STOP" : "") + "; policy now " +
               describe_state(j.value("state", json::object()));
    if (k == "checkpoint")
        return "native save of checkpoint-" + num(j.value("step", json())) + " begins";
    if (k == "commit")
        return "checkpoint-" + num(j.value("step", json())) + " committed";
    if (k == "link")
        return "final_checkpoint -> " + num(j.value("target", json()));
    if (k == "sidecar")
        return "sidecar written (" + num(j.value("evaluations", json())) + " evaluations)";
    if (k == "crash")
        return "CRASH at " + num(j.value("point", json())) +
               (j.value("scope", std::string()) == "rank"
                    ? " (rank " + std::to_string(l.rank) + " alone)"
                    : " (job, " + num(j.value("crash_kind", json())) + ")");
    if (k == "rank_death")
        return "rank " + std::to_string(l.rank) + " dies";
    if (k == "hang")
        return "HANG: " + num(j.value("ranks", json()));
    if (k == "end")
        return "end: " + num(j.value("outcome", json())) +
               (num(j.value("detail", json())).empty() ? "" : " (" + num(j["detail"]) + ")");
    if (auto words = describe_job_end(l); !words.empty())
        return words;
    json rest = j;
    for (const char* key : {"t", "inc", "rank", "kind"})
        rest.erase(key);
    return k + " " + rest.dump();
}

// Files a violation involves: those its message names, and the judged line's own.
std::string files_of(const std::string& message, const TraceLine* judged) {
    static const std::regex file(R"((checkpoint-\d+|final_checkpoint|[\w.-]+\.json))");
    std::set<std::string> files;
    for (std::sregex_iterator it(message.begin(), message.end(), file), end; it != end; ++it)
        files.insert(it->str());
    if (judged != nullptr) {
        for (const char* key : {"target", "path", "checkpoint"}) {
            if (judged->line.contains(key) && judged->line[key].is_string())
                files.insert(judged->line[key].get<std::string>());
        }
        if (judged->kind == "checkpoint" || judged->kind == "commit")
            files.insert("checkpoint-" + num(judged->line["step"]));
    }
    std::string text;
    for (const auto& f : files)
        text += (text.empty() ? "" : ", ") + f;
    return text.empty() ? "none named" : text;
}

std::string explain_violation(const TraceLine& v, const std::vector<TraceLine>& all) {
    const auto& judges = v.line.value("judges", json());
    const TraceLine* judged = judges.is_number_integer() && judges.get<std::size_t>() < all.size()
                                  ? &all[judges.get<std::size_t>()]
                                  : nullptr;
    const auto message = num(v.line.value("message", json()));
    std::string where = judged != nullptr
                            ? "line #" + std::to_string(judged->number) + " (" + judged->kind + ")"
                            : "event " + num(v.line.value("event", json())) + " (no line of its own)";
    const int rank = judged != nullptr ? std::max(judged->rank, 0) : 0;
    return "VIOLATION of " + num(v.line.value("property", json())) + " judging " + where + ": " + message +
           " [step " + std::to_string(v.step) + ", rank " + std::to_string(rank) +
           ", files: " + files_of(message, judged) + "]";
}

// The mark in the first column and the ANSI colour (on a terminal) of a line's kind.
struct Emphasis {
    char mark = ' ';
    const char* colour = nullptr;
};

Emphasis emphasis_of(const std::string& kind) {
    if (kind == "violation")
        return {'!', "\033[1;31m"};
    if (kind == "crash" || kind == "rank_death" || kind == "power_loss")
        return {'X', "\033[31m"};
    if (kind == "hang" || kind == "watchdog")
        return {'H', "\033[33m"};
    if (kind == "resume" || kind == "restored")
        return {'R', "\033[32m"};
    return {};
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text;
}

// A rank's cell names its own line's kind in at most seven characters.
std::string short_tag(const std::string& kind) {
    if (kind == "evaluation")
        return "eval";
    if (kind == "checkpoint")
        return "save";
    if (kind == "rank_death")
        return "DEAD";
    if (kind == "restored")
        return "restore";
    if (kind == "io_error")
        return "io_err";
    return kind.substr(0, 7);
}

std::string rank_cells(const TraceLine& l, int ranks) {
    const auto shared = all_ranks_cell(l.kind);
    std::string cells;
    for (int r = 0; r < ranks; ++r) {
        std::string cell = (l.rank == r) ? short_tag(l.kind) : (l.rank < 0 ? shared : std::string());
        if (l.kind == "crash" && l.line.value("scope", std::string()) == "job")
            cell = "CRASH";
        cells += pad(cell.empty() ? "." : cell, 8);
    }
    return cells;
}

}  // namespace

std::size_t first_violation_line(const std::vector<std::string>& lines) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].find("\"kind\":\"violation\"") != std::string::npos)
            return i;
    }
    return lines.size();
}

void print_text_trace(std::ostream& out, const std::vector<std::string>& lines,
                      const TextTraceOptions& options) {
    const auto parsed = parse_trace(lines);
    std::string header = "  line   time (s)   inc | ";
    for (int r = 0; r < parsed.ranks; ++r) {
        std::string name(1, 'r');  // not "r" + to_string: GCC 12 warns falsely (-Wrestrict)
        name += std::to_string(r);
        header += pad(std::move(name), 8);
    }
    out << header << "| event   (marks: X crash, R resume, H hang, ! violation; time is virtual)\n";
    const auto last = std::min(options.last, parsed.lines.size());
    for (std::size_t i = options.first; i < last; ++i) {
        const auto& l = parsed.lines[i];
        const auto emphasis = emphasis_of(l.kind);
        char prefix[48];
        std::snprintf(prefix, sizeof prefix, "%c #%-4zu %9.3f %4d | ", emphasis.mark, l.number,
                      static_cast<double>(l.time_ms) / 1000.0, l.incarnation);
        const auto text = l.kind == "violation" ? explain_violation(l, parsed.lines) : describe(l);
        const char* colour = options.colour ? emphasis.colour : nullptr;
        out << (colour != nullptr ? colour : "") << prefix << rank_cells(l, parsed.ranks) << "| " << text
            << (colour != nullptr ? "\033[0m" : "") << "\n";
    }
}

}  // namespace ckpt::cli
