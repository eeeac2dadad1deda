// The timeline's geometry (timeline_geometry.hpp): panel widths, bands, tick spacing.
#include "sim/cli/timeline_geometry.hpp"

#include <cmath>
#include <cstdio>

namespace ckpt::cli::timeline {

// A coordinate: one decimal, none when whole (a long run's file is mostly coordinates).
std::string px(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    std::string s = b;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    return s == "-0" ? "0" : s;
}

// Panels as wide as their spans at one scale, except that none gets narrower than a minimum inside
// (kRoomyInner, down to kMinInner when many panels share the width; the scale of the others shrinks
// to make room); the plot widens only when even kMinInner does not fit.
Axis axis_of(const ParsedTrace& trace, bool time) {
    Axis axis;
    axis.time = time;
    for (const auto& l : trace.lines) {
        const auto [it, fresh] = axis.of.emplace(l.incarnation, axis.panels.size());
        if (fresh)
            axis.panels.push_back({l.incarnation});
        // A resume line comes before its incarnation's start and still carries the step the
        // previous incarnation reached, which the resumed one has not.
        if (l.kind == "resume")
            continue;
        auto& p = axis.panels[it->second];
        p.lo = std::min(p.lo, axis.value(l));
        p.hi = std::max(p.hi, axis.value(l));
    }
    if (axis.panels.empty())
        axis.panels.push_back({0});
    double previous_hi = 0;
    for (auto& p : axis.panels) {
        if (p.lo > p.hi)
            p.lo = p.hi = previous_hi;
        previous_hi = p.hi;
    }
    const auto n = static_cast<double>(axis.panels.size());
    const double fixed = n * 2 * kPad + (n - 1) * kGap;
    axis.width = std::max(kPlotWidth, fixed + n * kMinInner);
    const double room = axis.width - fixed;
    // Few panels leave room for a short incarnation to show its markers apart and its heading.
    const double min_inner = std::clamp(room / (2 * n), kMinInner, kRoomyInner);
    std::vector<bool> narrow(axis.panels.size(), false);
    for (std::size_t round = 0; round <= axis.panels.size(); ++round) {
        double span = 0, taken = 0;
        for (std::size_t i = 0; i < axis.panels.size(); ++i) {
            if (narrow[i])
                taken += min_inner;
            else
                span += axis.panels[i].hi - axis.panels[i].lo;
        }
        axis.px_per_unit = span > 0 ? (room - taken) / span : 0;
        bool changed = false;
        for (std::size_t i = 0; i < axis.panels.size(); ++i) {
            if (!narrow[i] && (axis.panels[i].hi - axis.panels[i].lo) * axis.px_per_unit < min_inner)
                changed = narrow[i] = true;
        }
        if (!changed)
            break;
    }
    std::vector<double> inner(axis.panels.size());
    double used = 0;
    for (std::size_t i = 0; i < axis.panels.size(); ++i) {
        inner[i] = narrow[i] ? min_inner : (axis.panels[i].hi - axis.panels[i].lo) * axis.px_per_unit;
        used += inner[i];
    }
    double x = kLeft;
    for (std::size_t i = 0; i < axis.panels.size(); ++i) {
        const double share = axis.px_per_unit > 0 ? 0 : (room - used) / n;  // all narrow: share the rest
        axis.panels[i].left = x;
        axis.panels[i].right = x + 2 * kPad + inner[i] + share;
        x = axis.panels[i].right + kGap;
    }
    return axis;
}

// `several`: several incarnations, so headings above and resume arcs below.
Frame frame_of(int ranks, int violation_rows, bool several) {
    Frame f;
    f.ranks = ranks;
    f.violations_top = several ? f.header + 4 : 46;
    f.score_top = f.violations_top + kRowPitch * violation_rows + 6;
    f.score_bottom = f.score_top + kScoreHeight;
    f.lanes_top = f.score_bottom + 30;
    f.lanes_bottom = f.lanes_top + kLane * (ranks + 1);
    f.ticks = f.lanes_bottom + 14;
    f.arcs = f.lanes_bottom + 22;
    f.legend = several ? f.arcs + kArcDepth + 30 : f.lanes_bottom + 45;
    return f;
}

// Tick spacing: the smallest of 1, 2, 5 x 10^k units (whole steps, or ms) that keeps `min_px`
// between two ticks at the axis' scale.
double tick_spacing(const Axis& axis, double min_px) {
    if (axis.px_per_unit <= 0)  // nothing has a span: only the ends are labelled, in whole units
        return axis.time ? 1000 : 1;
    const double wanted = min_px / axis.px_per_unit;
    for (double decade = 1;; decade *= 10) {
        for (const double m : {1.0, 2.0, 5.0}) {
            if (m * decade >= wanted)
                return m * decade;
        }
    }
}

void draw_ticks(std::ostringstream& svg, const Axis& axis, const Frame& frame, Layout& layout) {
    const double spacing = tick_spacing(axis, axis.time ? 60 : 45);
    const int decimals = !axis.time || spacing >= 1000 ? 0 : spacing >= 100 ? 1 : spacing >= 10 ? 2 : 3;
    auto label = [&](double v) {
        if (!axis.time)
            return std::to_string(std::llround(v));
        char b[32];
        std::snprintf(b, sizeof b, "%.*f", decimals, v / 1000.0);
        return std::string(b);
    };
    auto tick = [&](const Panel& p, double v) {
        const double x = p.x(v);
        const auto text = layout.place(x, frame.ticks, 10, "middle", label(v), " class='tick'");
        if (!text.empty()) {
            svg << "<line x1='" << px(x) << "' x2='" << px(x) << "' y1='" << px(frame.lanes_bottom)
                << "' y2='" << px(frame.lanes_bottom + 4) << "' stroke='#999'/>" << text;
        }
    };
    if (!axis.time) {
        for (const auto& p : axis.panels) {
            tick(p, p.lo);
            tick(p, p.hi);
        }
    }
    for (const auto& p : axis.panels) {
        for (double v = std::ceil(p.lo / spacing) * spacing; v <= p.hi; v += spacing)
            tick(p, v);
    }
    svg << layout.place(10, frame.ticks, 12, "start", axis.time ? "time (s)" : "step") << "\n";
}

}  // namespace ckpt::cli::timeline
