// Builds the timeline as SVG text: panel geometry first, then markers grouped by pixel bin.
#include "sim/cli/trace_svg.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/cli/trace_lines.hpp"

namespace ckpt::cli {
namespace {

constexpr double kLeft = 120, kWidth = 1200, kScoreTop = 40, kScoreHeight = 160, kLane = 30, kBin = 3;

struct Marker {
    const char* shape;  // circle, square, diamond, cross, tick, triangle, bar
    const char* colour;
    const char* label;  // for the legend
};

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

std::string f(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

std::string g(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string shape(const Marker& m, double x, double y) {
    const std::string c = m.colour;
    const std::string s = m.shape;
    if (s == "circle")
        return "<circle cx='" + f(x) + "' cy='" + f(y) + "' r='4' fill='" + c + "'/>";
    if (s == "square")
        return "<rect x='" + f(x - 4) + "' y='" + f(y - 4) + "' width='8' height='8' fill='" + c + "'/>";
    if (s == "diamond")
        return "<path d='M" + f(x) + " " + f(y - 5) + " l5 5 l-5 5 l-5 -5z' fill='" + c + "'/>";
    if (s == "triangle")
        return "<path d='M" + f(x) + " " + f(y - 6) + " l6 11 h-12z' fill='" + c + "'/>";
    if (s == "tick")
        return "<rect x='" + f(x - 1) + "' y='" + f(y - 8) + "' width='2' height='16' fill='" + c + "'/>";
    if (s == "bar")
        return "<rect x='" + f(x - 1.5) + "' y='" + f(y + 2) + "' width='3' height='8' fill='" + c + "'/>";
    return "<path d='M" + f(x - 5) + " " + f(y - 5) + " l10 10 m0 -10 l-10 10' stroke='" + c +
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

struct Scale {
    double x_max = 1;
    bool time = false;
    double x(const TraceLine& l) const {
        return kLeft + kWidth * std::min(1.0, static_cast<double>(time ? l.time_ms : l.step) / x_max);
    }
};

void draw_scores(std::ostringstream& svg, const ParsedTrace& trace, const Scale& scale) {
    double lo = 1e300, hi = -1e300;
    for (const auto& l : trace.lines) {
        if (l.kind == "evaluation") {
            const double s = l.line.value("score", 0.0);
            lo = std::min(lo, s);
            hi = std::max(hi, s);
        }
    }
    if (lo > hi)
        return;
    if (hi - lo < 1e-9) {
        hi += 0.5;
        lo -= 0.5;
    }
    auto y = [&](double s) { return kScoreTop + kScoreHeight - (s - lo) / (hi - lo) * (kScoreHeight - 20); };
    std::string score_path, best_path, streaks, scores;
    const auto evaluations = std::count_if(trace.lines.begin(), trace.lines.end(),
                                           [](const TraceLine& l) { return l.kind == "evaluation"; });
    long streak_max = 1;
    for (const auto& l : trace.lines)
        if (l.kind == "evaluation")
            streak_max = std::max<long>(streak_max, l.line.value("streak", 0L));
    double last_bin = -1;
    for (const auto& l : trace.lines) {
        if (l.kind != "evaluation")
            continue;
        const double x = scale.x(l);
        const auto& best =
            l.line.value("state", nlohmann::json::object()).value("best_score", nlohmann::json());
        score_path += (score_path.empty() ? "M" : " L") + f(x) + " " + f(y(l.line.value("score", 0.0)));
        if (evaluations <= 40) {  // few enough to print each score beside its point
            scores += "<text x='" + f(x + 3) + "' y='" + f(y(l.line.value("score", 0.0)) - 4) +
                      "' font-size='9' fill='#1f77b4'>" + g(l.line.value("score", 0.0)) + "</text>";
        }
        if (best.is_number())
            best_path += (best_path.empty() ? "M" : " L") + f(x) + " " + f(y(best.get<double>()));
        if (x - last_bin >= kBin) {  // the streak as bars, one per pixel bin
            const double h =
                30.0 * static_cast<double>(l.line.value("streak", 0L)) / static_cast<double>(streak_max);
            streaks += "<rect x='" + f(x - 1) + "' y='" + f(kScoreTop + kScoreHeight - h) +
                       "' width='2' height='" + f(h) + "' fill='#ffbf00' opacity='0.6'/>";
            last_bin = x;
        }
    }
    svg << "<rect x='" << kLeft << "' y='" << kScoreTop << "' width='" << kWidth << "' height='"
        << kScoreHeight << "' fill='#f8f8f8' stroke='#ccc'/>\n"
        << "<text x='10' y='" << f(kScoreTop + 15) << "' font-size='12'>score</text>"
        << "<text x='10' y='" << f(kScoreTop + 30) << "' font-size='10'>" << g(lo) << " .. " << g(hi)
        << "</text>\n"
        << streaks << "\n<path d='" << score_path << "' fill='none' stroke='#1f77b4' stroke-width='1.2'/>\n"
        << "<path d='" << best_path
        << "' fill='none' stroke='#2ca02c' stroke-width='2' stroke-dasharray='6 3'/>\n"
        << scores << "\n";
}

}  // namespace

namespace {

double lane_y(int lane, int ranks) {  // lane -1 is storage, below the ranks
    const double first = kScoreTop + kScoreHeight + 30;
    return first + kLane * (lane < 0 ? ranks : lane) + kLane / 2;
}

// One marker per (lane, kind, pixel bin); a bin holding several events says how many.
void draw_lanes(std::ostringstream& svg, const ParsedTrace& trace, const Scale& scale) {
    for (int lane = -1; lane < trace.ranks; ++lane) {
        const double y = lane_y(lane, trace.ranks);
        svg << "<line x1='" << kLeft << "' x2='" << kLeft + kWidth << "' y1='" << f(y) << "' y2='" << f(y)
            << "' stroke='#ddd'/>"
            << "<text x='10' y='" << f(y + 4) << "' font-size='12'>"
            << (lane < 0 ? std::string("storage") : "rank " + std::to_string(lane)) << "</text>\n";
    }
    std::map<std::tuple<int, std::string, long>, std::pair<double, int>> bins;
    for (const auto& l : trace.lines) {
        for (const auto& [kind, where] : marks_of(l)) {
            const double x = scale.x(l);
            const int lane_of = where == -3 ? 0 : where;  // -3: rank 0, drawn above its evaluations
            const int first = where == -2 ? 0 : lane_of, last = where == -2 ? trace.ranks - 1 : lane_of;
            for (int lane = first; lane <= last; ++lane) {
                auto& bin = bins[{where == -3 ? -3 : lane, kind, static_cast<long>(x / kBin)}];
                bin = {x, bin.second + 1};
            }
        }
    }
    for (const auto& [key, bin] : bins) {
        const auto& [lane, kind, unused] = key;
        svg << "<g><title>" << markers().at(kind).label << " x" << bin.second << "</title>"
            << shape(markers().at(kind), bin.first,
                     lane == -3 ? lane_y(0, trace.ranks) - 10 : lane_y(lane, trace.ranks))
            << "</g>\n";
    }
}

void draw_violations(std::ostringstream& svg, const ParsedTrace& trace, const Scale& scale, double bottom) {
    double label_y = kScoreTop + 12;
    for (const auto& l : trace.lines) {
        if (l.kind != "violation")
            continue;
        const double x = scale.x(l);
        svg << "<line x1='" << f(x) << "' x2='" << f(x) << "' y1='" << kScoreTop << "' y2='" << f(bottom)
            << "' stroke='#d62728' stroke-width='2'/>"
            << "<text x='" << f(std::min(x + 4, kLeft + kWidth - 300)) << "' y='" << f(label_y)
            << "' font-size='12' fill='#d62728'>" << l.line.value("property", std::string())
            << " violated at step " << l.step << "</text>\n";
        label_y += 14;
    }
}

void draw_legend(std::ostringstream& svg, double top) {
    double x = kLeft, y = top;
    // `glyph` draws at (x, y), chosen here so a wrapped entry keeps its glyph beside its label.
    auto entry = [&](const auto& glyph, const std::string& label) {
        if (x > kLeft + kWidth - 150) {
            x = kLeft;
            y += 20;
        }
        svg << glyph(x, y) << "<text x='" << f(x + 10) << "' y='" << f(y + 4) << "' font-size='11'>" << label
            << "</text>\n";
        x += 200;
    };
    // Not a structured binding: clang 14 (the sanitizer build's compiler) cannot capture one.
    for (const auto& kind_and_marker : markers()) {
        const Marker& m = kind_and_marker.second;
        entry([&m](double gx, double gy) { return shape(m, gx, gy); }, m.label);
    }
    auto line = [](const char* style) {
        return [style](double gx, double gy) {
            return "<line x1='" + f(gx - 6) + "' x2='" + f(gx + 6) + "' y1='" + f(gy) + "' y2='" + f(gy) +
                   "' " + style + "/>";
        };
    };
    entry(line("stroke='#1f77b4' stroke-width='2'"), "score");
    entry(line("stroke='#2ca02c' stroke-width='2' stroke-dasharray='4 2'"), "best so far");
    entry(line("stroke='#ffbf00' stroke-width='6'"), "patience streak");
    entry(
        [](double gx, double gy) {
            return "<line x1='" + f(gx) + "' x2='" + f(gx) + "' y1='" + f(gy - 8) + "' y2='" + f(gy + 8) +
                   "' stroke='#d62728' stroke-width='2'/>";
        },
        "violation");
}

}  // namespace

std::string render_svg_timeline(const std::vector<std::string>& lines, const SvgOptions& options) {
    const auto trace = parse_trace(lines);
    Scale scale;
    scale.time = options.x_is_time;
    for (const auto& l : trace.lines)
        scale.x_max = std::max(scale.x_max, static_cast<double>(options.x_is_time ? l.time_ms : l.step));
    const double lanes_bottom = lane_y(-1, trace.ranks) + kLane / 2;
    const double height = lanes_bottom + 150;
    std::ostringstream svg;
    svg << "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='"
        << kLeft + kWidth + 30 << "' height='" << f(height)
        << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n"
        << "<text x='10' y='20' font-size='14'>ckptsim timeline: " << trace.ranks << " ranks, x = "
        << (options.x_is_time ? "virtual time (0 .. " + f(scale.x_max / 1000.0) + " s)"
                              : "training step (0 .. " + f(scale.x_max) + ")")
        << "; markers binned to " << kBin << " px (hover for counts)</text>\n";
    draw_scores(svg, trace, scale);
    draw_lanes(svg, trace, scale);
    draw_violations(svg, trace, scale, lanes_bottom);
    for (int tick = 0; tick <= 10; ++tick) {
        const double x = kLeft + kWidth * tick / 10.0;
        svg << "<text x='" << f(x) << "' y='" << f(lanes_bottom + 16)
            << "' font-size='10' text-anchor='middle'>"
            << f(scale.x_max * tick / 10.0 / (options.x_is_time ? 1000.0 : 1.0)) << "</text>";
    }
    draw_legend(svg, lanes_bottom + 45);
    svg << "\n</svg>\n";
    return svg.str();
}

}  // namespace ckpt::cli
