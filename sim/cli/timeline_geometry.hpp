// Where things go on the SVG timeline (trace_svg.cpp draws them): the x axis cut into one panel
// per incarnation at one scale, the bands of the picture from the title down to the legend, the
// tick spacing and the axis labels, and a Layout that places a label only where its box overlaps
// no label placed before it (boxes from svg_text.hpp). Nothing here draws a marker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/svg_text.hpp"
#include "sim/cli/trace_lines.hpp"
#include "sim/cli/xml_escape.hpp"

namespace ckpt::cli::timeline {

inline constexpr double kLeft = 120, kPlotWidth = 1200, kScoreHeight = 160, kLane = 30, kBin = 3;
// Between two incarnations' panels, inside a panel's edges, the narrowest a panel's inside gets, and
// the narrowest it gets when few panels share the width.
inline constexpr double kGap = 14, kPad = 6, kMinInner = 24, kRoomyInner = 80;
inline constexpr int kViolationRows = 4;  // rows of violation labels above the panels; further ones: tooltips
inline constexpr double kRowPitch = 14, kArcDepth = 22;

// A coordinate: one decimal, none when whole (a long run's file is mostly coordinates).
std::string px(double v);

// "1 rank", "2 ranks": every count the timeline writes goes through here.
inline std::string counted(long long n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Every label's box: a label is drawn only where it overlaps no label drawn before it, so the
// order of placing is the order of priority.
class Layout {
  public:
    // The <text> element, or "" when the box would overlap a placed one or leave `within`.
    std::string place(double x, double y, double size, const char* anchor, const std::string& text,
                      const std::string& attributes = "", const svg::Box* within = nullptr) {
        const auto box = svg::text_box(x, y, size, anchor, text);
        if (!fits(box, within))
            return "";
        placed_.push_back(box);
        return "<text x='" + px(x) + "' y='" + px(y) + "' font-size='" + px(size) + "'" +
               (std::string(anchor) == "start" ? "" : " text-anchor='" + std::string(anchor) + "'") +
               attributes + ">" + xml_escaped(text) + "</text>";
    }

    bool fits(const svg::Box& box, const svg::Box* within = nullptr) const {
        if (within != nullptr && (box.left < within->left || box.right > within->right ||
                                  box.top < within->top || box.bottom > within->bottom))
            return false;
        return std::none_of(placed_.begin(), placed_.end(),
                            [&](const svg::Box& other) { return box.overlaps(other, 1); });
    }

  private:
    std::vector<svg::Box> placed_;
};

// One incarnation's stretch of the x axis: the steps (or virtual ms) it covered, and where it sits.
struct Panel {
    int incarnation = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
    double left = 0, right = 0;  // its edges in px; the markers keep kPad inside them

    double x(double v) const {
        const double inner = right - left - 2 * kPad;
        return hi > lo ? left + kPad + (v - lo) / (hi - lo) * inner : left + kPad + inner / 2;
    }
};

struct Axis {
    bool time = false;
    std::vector<Panel> panels;      // in the order the incarnations ran
    std::map<int, std::size_t> of;  // incarnation -> its panel
    double width = kPlotWidth;      // of all panels and the gaps between them
    double px_per_unit = 0;         // in every panel not held at its minimum width

    double value(const TraceLine& l) const {
        return time ? static_cast<double>(l.time_ms) : static_cast<double>(l.step);
    }
    const Panel& panel(const TraceLine& l) const { return panels[of.at(l.incarnation)]; }
    double x(const TraceLine& l) const { return panel(l).x(value(l)); }
};

// Panels as wide as their spans at one scale, except that none gets narrower than a minimum inside
// (kRoomyInner, down to kMinInner when many panels share the width; the scale of the others shrinks
// to make room); the plot widens only when even kMinInner does not fit.
Axis axis_of(const ParsedTrace& trace, bool time);

// Where each band of the picture sits, top to bottom: the title and its second line, the
// incarnations' headings, the rows of violation labels (whose lines run down from them, so nothing
// sits between a label and its panel but other labels' rows), the score panels, the lanes, the axis
// labels, the resume arcs and the legend.
struct Frame {
    double header = 56;          // the baseline of the incarnations' headings
    double violations_top = 46;  // the top of the first row of violation labels
    double score_top = 0, score_bottom = 0;
    double lanes_top = 0, lanes_bottom = 0;
    double ticks = 0;  // the baseline of the axis labels
    double arcs = 0;   // the top of the resume arcs
    double legend = 0;
    int ranks = 1;

    double row(int r) const { return violations_top + 11 + kRowPitch * r; }
    double lane_y(int lane) const {  // lane -1 is storage, below the ranks
        return lanes_top + kLane * (lane < 0 ? ranks : lane) + kLane / 2;
    }
};

// `several`: several incarnations, so headings above and resume arcs below.
Frame frame_of(int ranks, int violation_rows, bool several);

// Tick spacing: the smallest of 1, 2, 5 x 10^k units (whole steps, or ms) that keeps `min_px`
// between two ticks at the axis' scale.
double tick_spacing(const Axis& axis, double min_px);

// The axis labels: whole steps (each step panel's ends first: where a resumed incarnation starts
// is the point of its panel), or seconds at multiples of a round spacing.
void draw_ticks(std::ostringstream& svg, const Axis& axis, const Frame& frame, Layout& layout);

}  // namespace ckpt::cli::timeline
