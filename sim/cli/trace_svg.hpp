// The SVG timeline of one run, written by hand (no library): a lane per rank and one for
// storage, x the training step (or virtual time) in one panel per incarnation with an arc from
// each resume's checkpoint to the resume, markers per event kind binned to a few pixels so a
// 10,000-step, 8-rank run stays readable, the score curve, best-so-far and patience streak, and
// labels laid out so that none overlaps another.
#pragma once

#include <string>
#include <vector>

namespace ckpt::cli {

struct SvgOptions {
    bool x_is_time = false;  // x is virtual time instead of the training step
};

std::string render_svg_timeline(const std::vector<std::string>& lines, const SvgOptions& options);

}  // namespace ckpt::cli
