// The violations on the SVG timeline (timeline_violations.hpp).
#include "sim/cli/timeline_violations.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/cli/xml_escape.hpp"

namespace ckpt::cli::timeline {

std::vector<ViolationMark> violation_marks(const ParsedTrace& trace, const Axis& axis) {
    std::map<std::pair<std::size_t, long>, ViolationMark> bins;
    for (const auto& l : trace.lines) {
        if (l.kind != "violation")
            continue;
        const double x = axis.x(l);
        auto [it, fresh] = bins.try_emplace({axis.of.at(l.incarnation), static_cast<long>(x / kBin)});
        auto& v = it->second;
        if (fresh) {
            v.x = x;
            v.first_step = l.step;
        }
        v.last_step = l.step;
        ++v.count;
        const auto property = l.line.value("property", std::string("?"));
        if (std::find(v.properties.begin(), v.properties.end(), property) == v.properties.end())
            v.properties.push_back(property);
    }
    std::vector<ViolationMark> marks;
    for (auto& [key, v] : bins) {
        for (std::size_t i = 0; i < v.properties.size(); ++i)
            v.label += (i == 0 ? "" : ", ") + v.properties[i];
        v.label += " violated at " + (v.first_step == v.last_step ? "step " + std::to_string(v.first_step)
                                                                  : "steps " + std::to_string(v.first_step) +
                                                                        ".." + std::to_string(v.last_step));
        if (v.count > 1)
            v.label += " (" + counted(v.count, "violation") + ")";
        marks.push_back(std::move(v));
    }
    return marks;
}

int lay_out_violations(std::vector<ViolationMark>& marks, const Axis& axis, const Frame& frame,
                       const Layout& layout) {
    int rows = 0;
    const double right = kLeft + axis.width;
    for (std::size_t i = 0; i < marks.size(); ++i) {
        auto& m = marks[i];
        const double width = svg::text_width(m.label, 11);
        const bool leftwards = m.x + 3 + width > right;
        for (int r = 0; r < kViolationRows && m.row < 0; ++r) {
            const auto box = svg::text_box(leftwards ? m.x - 3 : m.x + 3, frame.row(r), 11,
                                           leftwards ? "end" : "start", m.label);
            bool free = layout.fits(box);
            for (std::size_t j = 0; j < i && free; ++j) {
                const auto& other = marks[j];
                if (other.row < 0)
                    continue;
                const svg::Box wider{box.left - 6, box.top, box.right + 6, box.bottom};  // words apart
                free = !wider.overlaps(other.box) &&
                       !(other.row > r && m.x >= other.box.left - 2 && m.x <= other.box.right + 2) &&
                       !(other.row < r && other.x >= box.left - 2 && other.x <= box.right + 2);
            }
            if (free) {
                m.row = r;
                m.box = box;
                rows = std::max(rows, r + 1);
            }
        }
    }
    return rows;
}

void draw_violations(std::ostringstream& svg, const std::vector<ViolationMark>& marks, const Frame& frame,
                     Layout& layout) {
    for (const auto& m : marks) {
        const bool labelled = m.row >= 0;
        svg << "<g><title>" << xml_escaped(m.label) << "</title><line x1='" << px(m.x) << "' x2='" << px(m.x)
            << "' y1='" << px(labelled ? frame.row(m.row) + 3 : frame.score_top) << "' y2='"
            << px(frame.lanes_bottom) << "' stroke='#d62728' stroke-width='2'/></g>";
        if (labelled) {
            const bool leftwards = m.box.right <= m.x;
            svg << layout.place(leftwards ? m.x - 3 : m.x + 3, frame.row(m.row), 11,
                                leftwards ? "end" : "start", m.label, " fill='#d62728'");
        }
        svg << "\n";
    }
}

}  // namespace ckpt::cli::timeline
