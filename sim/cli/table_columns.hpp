// Column padding for the CLI's plain-text tables: a cell is padded to its column's width, and
// always followed by at least one space, so a long value never runs into the next column.
#pragma once

#include <cstddef>
#include <string>

namespace ckpt::cli {

inline std::string padded(const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace ckpt::cli
