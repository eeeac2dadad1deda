// The violations on the SVG timeline: one mark per pixel bin of a panel (its properties, steps and
// count), the rows their labels take above the panels (the highest row where neither the label nor
// its red line crosses another label), and the drawing of the lines and labels.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/timeline_geometry.hpp"
#include "sim/cli/trace_lines.hpp"

namespace ckpt::cli::timeline {

// The violations of one pixel bin of one panel, drawn as one red line with one label.
struct ViolationMark {
    double x = 0;
    std::int64_t first_step = 0, last_step = 0;
    std::vector<std::string> properties;  // each once, in the order they were violated
    long long count = 0;
    std::string label;
    int row = -1;  // -1: no room for the label
    svg::Box box;
};

std::vector<ViolationMark> violation_marks(const ParsedTrace& trace, const Axis& axis);

// Rows for the violation labels, left to right: a label takes the highest row where it overlaps
// no label, its line (which runs down from its row) crosses no label below, and no line from a
// higher row crosses it. Returns how many rows are used.
int lay_out_violations(std::vector<ViolationMark>& marks, const Axis& axis, const Frame& frame,
                       const Layout& layout);

void draw_violations(std::ostringstream& svg, const std::vector<ViolationMark>& marks, const Frame& frame,
                     Layout& layout);

}  // namespace ckpt::cli::timeline
