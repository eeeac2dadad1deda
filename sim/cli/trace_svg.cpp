// Draws the timeline as SVG text, in one panel per incarnation (timeline_geometry.hpp) so a resume
// that goes back in steps gets a panel of its own, with an arc from the checkpoint it resumed from.
// Every label goes through one Layout that refuses a box overlapping one already placed, so a label
// finds a free place or is left out (its text stays in a tooltip). Markers are grouped per
// incarnation, lane, kind and 3-pixel bin and drawn as <use> of one shape per kind, so a
// 10,000-step, 8-rank run stays a file of a few hundred KB.
#include "sim/cli/trace_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/cli/svg_text.hpp"
#include "sim/cli/timeline_geometry.hpp"
#include "sim/cli/timeline_violations.hpp"
#include "sim/cli/trace_lines.hpp"
#include "sim/cli/xml_escape.hpp"

namespace ckpt::cli::timeline {
namespace {

struct Marker {
    const char* shape;  // circle, square, diamond, cross, tick, triangle, bar
    const char* colour;
    const char* label;  // for the legend and the tooltips
};

// By kind; the kind is also the id of the marker's shape in <defs>.
const std::map<std::string, Marker>& markers() {
    static const std::map<std::string, Marker> table = {
        {"evaluation", {"circle", "#1f77b4", "evaluation (score above)"}},
        {"decision_best", {"diamond", "#2ca02c", "decision: new best"}},
        {"decision_other", {"diamond", "#999999", "decision: not better"}},
        {"decision_stop", {"diamond", "#d62728", "decision: stop"}},
        {"checkpoint", {"square", "#17becf", "native save begins"}},
        {"commit", {"circle", "#0b5394", "commit"}},
        {"link", {"tick", "#9467bd", "final_checkpoint link moved"}},
        {"sidecar", {"bar", "#8c564b", "sidecar written"}},
        {"corrupt", {"cross", "#8c564b", "corruption injected"}},
        {"crash_process_kill", {"cross", "#ff7f0e", "crash: process kill"}},
        {"crash_power_loss", {"cross", "#d62728", "crash: power loss"}},
        {"crash_rank", {"cross", "#e377c2", "crash: one rank"}},
        {"rank_death", {"cross", "#000000", "rank dies"}},
        {"resume", {"triangle", "#2ca02c", "resume"}},
        {"hang", {"square", "#ffbf00", "hang"}},
        {"io_error", {"tick", "#ff7f0e", "I/O error injected"}}};
    return table;
}

std::string score_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string shape(const Marker& m, double x, double y) {
    const std::string c = m.colour;
    const std::string s = m.shape;
    if (s == "circle")
        return "<circle cx='" + px(x) + "' cy='" + px(y) + "' r='4' fill='" + c + "'/>";
    if (s == "square")
        return "<rect x='" + px(x - 4) + "' y='" + px(y - 4) + "' width='8' height='8' fill='" + c + "'/>";
    if (s == "diamond")
        return "<path d='M" + px(x) + " " + px(y - 5) + " l5 5 l-5 5 l-5 -5z' fill='" + c + "'/>";
    if (s == "triangle")
        return "<path d='M" + px(x) + " " + px(y - 6) + " l6 11 h-12z' fill='" + c + "'/>";
    if (s == "tick")
        return "<rect x='" + px(x - 1) + "' y='" + px(y - 8) + "' width='2' height='16' fill='" + c + "'/>";
    if (s == "bar")
        return "<rect x='" + px(x - 1.5) + "' y='" + px(y + 2) + "' width='3' height='8' fill='" + c + "'/>";
    return "<path d='M" + px(x - 5) + " " + px(y - 5) + " l10 10 m0 -10 l-10 10' stroke='" + c +
           "' stroke-width='2.5'/>";
}

// Which marker a line draws, on which lanes (-1: storage lane; -2: every rank lane).
std::vector<std::pair<std::string, int>> marks_of(const TraceLine& l) {
    const auto& k = l.kind;
    if (k == "evaluation") {
        const auto reason = l.line.value("reason", std::string());
        const char* decision =
            l.line.value("stop", false)
                ? "decision_stop"
                : ((reason == "initial" || reason == "improved" || reason.find("best") != std::string::npos)
                       ? "decision_best"
                       : "decision_other");
        return {{"evaluation", 0}, {decision, -3}};
    }
    if (k == "checkpoint" || k == "commit" || k == "link" || k == "sidecar" || k == "corrupt" ||
        k == "io_error")
        return {{k, -1}};
    if (k == "crash") {
        if (l.line.value("scope", std::string()) == "rank")
            return {{"crash_rank", l.rank}};
        const auto kind = l.line.value("crash_kind", std::string());
        return {{kind.rfind("power_loss", 0) == 0 ? "crash_power_loss" : "crash_process_kill", -2}};
    }
    if (k == "rank_death")
        return {{"rank_death", l.rank}};
    if (k == "start" && !l.line.value("resume_step", nlohmann::json()).is_null())
        return {{"resume", -2}};
    if (k == "hang")
        return {{"hang", -2}};
    return {};
}

// The score curve, best so far and patience streak, broken at each incarnation: a resumed one
// starts its best-so-far from the state it restored.
void draw_scores(std::ostringstream& svg, const ParsedTrace& trace, const Axis& axis, const Frame& frame,
                 Layout& layout) {
    double lo = 1e300, hi = -1e300;
    long long evaluations = 0;
    long streak_max = 1;
    auto best_of = [](const TraceLine& l) {
        return l.line.value("state", nlohmann::json::object()).value("best_score", nlohmann::json());
    };
    for (const auto& l : trace.lines) {
        if (l.kind == "evaluation" || l.kind == "restored") {
            for (const auto& s :
                 {l.kind == "evaluation" ? l.line.value("score", nlohmann::json()) : nlohmann::json(),
                  best_of(l)}) {
                if (s.is_number()) {
                    lo = std::min(lo, s.get<double>());
                    hi = std::max(hi, s.get<double>());
                }
            }
        }
        if (l.kind == "evaluation") {
            ++evaluations;
            streak_max = std::max<long>(streak_max, l.line.value("streak", 0L));
        }
    }
    for (const auto& p : axis.panels) {
        svg << "<rect x='" << px(p.left) << "' y='" << px(frame.score_top) << "' width='"
            << px(p.right - p.left) << "' height='" << px(kScoreHeight) << "' fill='#f8f8f8' stroke='#ccc'/>";
    }
    svg << layout.place(10, frame.score_top + 15, 12, "start", "score") << "\n";
    if (lo > hi)
        return;
    if (hi - lo < 1e-9) {
        hi += 0.5;
        lo -= 0.5;
    }
    auto y = [&](double s) { return frame.score_bottom - (s - lo) / (hi - lo) * (kScoreHeight - 20); };
    svg << layout.place(kLeft - 4, y(hi) + 3, 10, "end", score_text(hi))
        << layout.place(kLeft - 4, y(lo) + 3, 10, "end", score_text(lo)) << "\n";
    std::string score_path, best_path, streaks, scores;
    int path_incarnation = -1, best_incarnation = -1;
    double last_bin = -1;
    for (const auto& l : trace.lines) {
        const bool restored = l.kind == "restored" && l.rank <= 0;
        if (l.kind != "evaluation" && !restored)
            continue;
        const double x = axis.x(l);
        const auto best = best_of(l);
        if (best.is_number()) {
            best_path +=
                (best_incarnation == l.incarnation ? " L" : "M") + px(x) + " " + px(y(best.get<double>()));
            best_incarnation = l.incarnation;
        }
        if (restored)
            continue;
        const double score = l.line.value("score", 0.0);
        score_path += (path_incarnation == l.incarnation ? " L" : "M") + px(x) + " " + px(y(score));
        path_incarnation = l.incarnation;
        if (evaluations <= 40) {  // few enough to dot each score and print it beside, where there is room
            scores += "<circle cx='" + px(x) + "' cy='" + px(y(score)) + "' r='2' fill='#1f77b4'/>";
            const auto& p = axis.panel(l);
            const svg::Box within{p.left + 1, frame.score_top + 1, p.right - 1, frame.score_bottom - 1};
            const auto text = score_text(score);
            for (const auto& [dx, dy, anchor] :
                 {std::tuple{3.0, -4.0, "start"}, std::tuple{-3.0, -4.0, "end"},
                  std::tuple{3.0, 11.0, "start"}, std::tuple{-3.0, 11.0, "end"}}) {
                const auto label =
                    layout.place(x + dx, y(score) + dy, 9, anchor, text, " fill='#1f77b4'", &within);
                if (!label.empty()) {
                    scores += label;
                    break;
                }
            }
        }
        if (x - last_bin >= kBin) {  // the streak as bars, one per pixel bin
            const double h =
                30.0 * static_cast<double>(l.line.value("streak", 0L)) / static_cast<double>(streak_max);
            streaks += "<rect x='" + px(x - 1) + "' y='" + px(frame.score_bottom - h) +
                       "' width='2' height='" + px(h) + "' fill='#ffbf00' opacity='0.6'/>";
            last_bin = x;
        }
    }
    svg << streaks << "\n<path d='" << score_path << "' fill='none' stroke='#1f77b4' stroke-width='1.2'/>\n"
        << "<path d='" << best_path
        << "' fill='none' stroke='#2ca02c' stroke-width='2' stroke-dasharray='6 3'/>\n"
        << scores << "\n";
}

// One marker per (incarnation, lane, kind, pixel bin); its tooltip says how many and which steps.
void draw_lanes(std::ostringstream& svg, const ParsedTrace& trace, const Axis& axis, const Frame& frame,
                Layout& layout) {
    for (int lane = -1; lane < trace.ranks; ++lane) {
        const double y = frame.lane_y(lane);
        for (const auto& p : axis.panels) {
            svg << "<line x1='" << px(p.left) << "' x2='" << px(p.right) << "' y1='" << px(y) << "' y2='"
                << px(y) << "' stroke='#ddd'/>";
        }
        svg << layout.place(10, y + 4, 12, "start",
                            lane < 0 ? std::string("storage") : "rank " + std::to_string(lane))
            << "\n";
    }
    struct Bin {
        double x = 0;
        long long count = 0;
        std::int64_t first_step = 0, last_step = 0;
        int incarnation = 0;
    };
    std::map<std::tuple<std::size_t, int, std::string, long>, Bin> bins;
    for (const auto& l : trace.lines) {
        for (const auto& [kind, where] : marks_of(l)) {
            const double x = axis.x(l);
            const int lane_of = where == -3 ? 0 : where;  // -3: rank 0, drawn above its evaluations
            const int first = where == -2 ? 0 : lane_of, last = where == -2 ? trace.ranks - 1 : lane_of;
            for (int lane = first; lane <= last; ++lane) {
                auto& bin = bins[{axis.of.at(l.incarnation), where == -3 ? -3 : lane, kind,
                                  static_cast<long>(x / kBin)}];
                if (bin.count == 0)
                    bin.first_step = l.step;
                bin.x = x;
                bin.last_step = l.step;
                bin.incarnation = l.incarnation;
                ++bin.count;
            }
        }
    }
    const bool several = axis.panels.size() > 1;
    for (const auto& [key, bin] : bins) {
        const auto& [panel, lane, kind, unused] = key;
        const auto steps = bin.first_step == bin.last_step ? "step " + std::to_string(bin.first_step)
                                                           : "steps " + std::to_string(bin.first_step) +
                                                                 ".." + std::to_string(bin.last_step);
        svg << "<g><title>" << xml_escaped(markers().at(kind).label) << ": " << counted(bin.count, "marker")
            << ", " << steps << (several ? ", incarnation " + std::to_string(bin.incarnation) : "")
            << "</title><use href='#" << kind << "' x='" << px(bin.x) << "' y='"
            << px(lane == -3 ? frame.lane_y(0) - 10 : frame.lane_y(lane)) << "'/></g>\n";
    }
}

// Each incarnation's heading, as long a form as its panel has room for.
void draw_headers(std::ostringstream& svg, const ParsedTrace& trace, const Axis& axis, const Frame& frame,
                  Layout& layout) {
    if (axis.panels.size() < 2)
        return;
    std::map<int, std::string> from;  // incarnation -> the checkpoint its resume names
    for (const auto& l : trace.lines) {
        if (l.kind == "resume")
            from[l.incarnation] = l.line.value("checkpoint", std::string());
        else if (l.kind == "start" && l.line.value("resume_step", nlohmann::json()).is_null() &&
                 l.incarnation > 0)
            from.emplace(l.incarnation, "");
    }
    for (const auto& p : axis.panels) {
        const auto n = std::to_string(p.incarnation);
        std::vector<std::string> forms = {"incarnation " + n, "inc " + n, n};
        if (const auto it = from.find(p.incarnation); it != from.end()) {
            const auto whence = it->second.empty() ? std::string("fresh start") : "from " + it->second;
            forms.insert(forms.begin(), {"incarnation " + n + ", " + whence, "inc " + n + ", " + whence});
        }
        const svg::Box within{p.left, frame.header - 10, p.right, frame.header + 4};
        for (const auto& form : forms) {
            const auto text =
                layout.place(p.left + 2, frame.header, 10, "start", form, " fill='#555'", &within);
            if (!text.empty()) {
                svg << text;
                break;
            }
        }
    }
    svg << "\n";
}

// An arc under the axis from the line that saved the checkpoint a resume named (its commit, else
// the save that began it) to the resume, so a resume that goes back in steps can be followed.
void draw_resume_arcs(std::ostringstream& svg, const ParsedTrace& trace, const Axis& axis, const Frame& frame,
                      Layout& layout) {
    std::string checkpoint;
    for (std::size_t i = 0; i < trace.lines.size(); ++i) {
        const auto& l = trace.lines[i];
        if (l.kind == "resume")
            checkpoint = l.line.value("checkpoint", std::string());
        if (l.kind != "start" || l.incarnation == trace.lines.front().incarnation)
            continue;
        const auto resume_step = l.line.value("resume_step", nlohmann::json());
        const TraceLine* source = nullptr;
        for (const char* kind : {"commit", "checkpoint"}) {
            for (std::size_t j = i; j-- > 0 && source == nullptr && resume_step.is_number_integer();) {
                const auto& s = trace.lines[j];
                if (s.kind == kind && s.incarnation != l.incarnation &&
                    s.line.value("step", std::int64_t{-1}) == resume_step.get<std::int64_t>())
                    source = &s;
            }
        }
        const bool saved = source != nullptr;
        for (std::size_t j = i; j-- > 0 && source == nullptr;) {  // else from where the last one ended
            if (trace.lines[j].incarnation != l.incarnation && trace.lines[j].kind != "resume")
                source = &trace.lines[j];
        }
        if (source == nullptr)
            continue;
        const double xs = axis.x(*source), xt = axis.x(l), y0 = frame.arcs,
                     y1 = frame.arcs + kArcDepth * 4 / 3;
        const auto name = resume_step.is_null() ? std::string("fresh start") : checkpoint;
        const auto title =
            "incarnation " + std::to_string(l.incarnation) +
            (resume_step.is_null() ? " starts afresh"
                                   : " resumes from " + checkpoint + " (step " +
                                         std::to_string(resume_step.get<std::int64_t>()) + ")") +
            (saved ? ", saved in incarnation " : ", after incarnation ") +
            std::to_string(source->incarnation) + (saved ? "" : " ended");
        svg << "<g><title>" << xml_escaped(title) << "</title><path d='M" << px(xs) << " " << px(y0) << " C"
            << px(xs) << " " << px(y1) << " " << px(xt) << " " << px(y1) << " " << px(xt) << " " << px(y0)
            << "' fill='none' stroke='#2ca02c' stroke-width='1.5' class='resume-arc'/><circle cx='" << px(xs)
            << "' cy='" << px(y0) << "' r='2.5' fill='#2ca02c'/><path d='M" << px(xt) << " " << px(y0)
            << " l-4 8 h8z' fill='#2ca02c'/></g>";
        for (const double dy : {10.0, 20.0}) {
            const auto text =
                layout.place((xs + xt) / 2, y0 + kArcDepth + dy, 9, "middle", name, " fill='#2ca02c'");
            if (!text.empty()) {
                svg << text;
                break;
            }
        }
        svg << "\n";
    }
}

// Returns the y below its last row.
double draw_legend(std::ostringstream& svg, const Axis& axis, double top, Layout& layout) {
    using Glyph = std::function<std::string(double, double)>;
    std::vector<std::pair<Glyph, std::string>> entries;
    for (const auto& [kind, m] : markers()) {
        entries.emplace_back(
            [kind = kind](double gx, double gy) {
                return "<use href='#" + kind + "' x='" + px(gx) + "' y='" + px(gy) + "'/>";
            },
            m.label);
    }
    auto line = [](const char* style) {
        return [style](double gx, double gy) {
            return "<line x1='" + px(gx - 6) + "' x2='" + px(gx + 6) + "' y1='" + px(gy) + "' y2='" + px(gy) +
                   "' " + style + "/>";
        };
    };
    entries.emplace_back(line("stroke='#1f77b4' stroke-width='2'"), "score");
    entries.emplace_back(line("stroke='#2ca02c' stroke-width='2' stroke-dasharray='4 2'"), "best so far");
    entries.emplace_back(line("stroke='#ffbf00' stroke-width='6'"), "patience streak");
    entries.emplace_back(
        [](double gx, double gy) {
            return "<line x1='" + px(gx) + "' x2='" + px(gx) + "' y1='" + px(gy - 8) + "' y2='" + px(gy + 8) +
                   "' stroke='#d62728' stroke-width='2'/>";
        },
        "violation");
    entries.emplace_back(
        [](double gx, double gy) {
            return "<path d='M" + px(gx - 6) + " " + px(gy - 4) + " C" + px(gx - 6) + " " + px(gy + 6) + " " +
                   px(gx + 6) + " " + px(gy + 6) + " " + px(gx + 6) + " " + px(gy - 4) +
                   "' fill='none' stroke='#2ca02c' stroke-width='1.5'/>";
        },
        "resume: from its checkpoint");
    double column = 0;
    for (const auto& [glyph, label] : entries)
        column = std::max(column, 10 + svg::text_width(label, 11) + 24);
    const auto columns = std::max<std::size_t>(1, static_cast<std::size_t>(axis.width / column));
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const double x = kLeft + column * static_cast<double>(i % columns);
        const double y = top + 20 * static_cast<double>(i / columns);
        svg << entries[i].first(x, y) << layout.place(x + 10, y + 4, 11, "start", entries[i].second) << "\n";
    }
    return top + 20 * static_cast<double>((entries.size() + columns - 1) / columns);
}

}  // namespace

std::string render(const std::vector<std::string>& lines, const SvgOptions& options) {
    const auto trace = parse_trace(lines);
    const auto axis = axis_of(trace, options.x_is_time);
    Layout layout;
    const bool arcs = axis.panels.size() > 1;
    auto violations = violation_marks(trace, axis);
    const int rows = lay_out_violations(violations, axis, frame_of(trace.ranks, 0, arcs), layout);
    const auto frame = frame_of(trace.ranks, rows, arcs);

    long long evaluations = 0, violation_count = 0, unlabelled = 0;
    for (const auto& l : trace.lines) {
        evaluations += l.kind == "evaluation";
        violation_count += l.kind == "violation";
    }
    for (const auto& v : violations)
        unlabelled += v.row < 0 ? v.count : 0;
    std::string title =
        "ckptsim timeline: " + counted(trace.ranks, "rank") + ", " + counted(evaluations, "evaluation");
    if (arcs)
        title += ", " + counted(static_cast<long long>(axis.panels.size()), "incarnation");
    if (violation_count > 0)
        title += ", " + counted(violation_count, "violation");
    double x_max = 0;
    for (const auto& p : axis.panels)
        x_max = std::max(x_max, p.hi);
    std::string subtitle =
        (axis.time ? "x = virtual time in s (0 .. " + px(x_max / 1000.0) + ")"
                   : "x = training step (0 .. " + std::to_string(std::llround(x_max)) + ")") +
        (arcs ? ", one panel per incarnation in the order they ran; an arc under the axis links each resume "
                "to its checkpoint"
              : "") +
        "; markers binned to " + px(kBin) + " px (hover for counts)";
    if (unlabelled > 0)
        subtitle += "; the labels of " + counted(unlabelled, "violation") +
                    " left out for room (hover the red lines)";

    std::ostringstream body;
    body << layout.place(10, 20, 14, "start", title) << "\n"
         << layout.place(10, 37, 11, "start", subtitle, " fill='#555'") << "\n";
    draw_scores(body, trace, axis, frame, layout);
    draw_headers(body, trace, axis, frame, layout);
    draw_violations(body, violations, frame, layout);
    draw_lanes(body, trace, axis, frame, layout);
    draw_ticks(body, axis, frame, layout);
    draw_resume_arcs(body, trace, axis, frame, layout);
    const double height = draw_legend(body, axis, frame.legend, layout) + 10;

    std::ostringstream svg;
    svg << "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='"
        << px(kLeft + axis.width + 30) << "' height='" << px(height) << "' font-family='sans-serif'>\n<defs>";
    for (const auto& [kind, m] : markers())
        svg << "<g id='" << kind << "'>" << shape(m, 0, 0) << "</g>";
    svg << "</defs>\n<rect width='100%' height='100%' fill='white'/>\n" << body.str() << "</svg>\n";
    return svg.str();
}

}  // namespace ckpt::cli::timeline

namespace ckpt::cli {

std::string render_svg_timeline(const std::vector<std::string>& lines, const SvgOptions& options) {
    return timeline::render(lines, options);
}

}  // namespace ckpt::cli
