// How much room a line of SVG text takes, estimated without a font library: the advance widths of
// DejaVu Sans (the sans-serif rsvg-convert and most Linux browsers pick, and wider than Helvetica or
// Arial, so the estimate errs on the roomy side), and a box from the baseline by its ascent and
// descent. The timeline lays its labels out with these boxes, and the tests check the boxes of the
// labels a written SVG holds with the same functions, so the two cannot disagree.
#pragma once

#include <array>
#include <string_view>

namespace ckpt::cli::svg {

// DejaVu Sans advance widths of ' ' .. '~' in font units (2048 to the em), read from its hmtx table.
inline constexpr std::array<unsigned short, 95> kDejaVuSansAdvance = {
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024,
    1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,
    1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};

// The width of `text` (UTF-8, no markup or entities) at `font_size` px; a character outside ASCII
// counts one em, wider than any ASCII one.
inline double text_width(std::string_view text, double font_size) {
    double units = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f)
            units += kDejaVuSansAdvance[byte - 0x20];
        else if (byte >= 0xc0 || byte < 0x20)  // the lead byte of a multi-byte character (or a control)
            units += 2048;
    }
    return units / 2048 * font_size;
}

struct Box {
    double left = 0, top = 0, right = 0, bottom = 0;

    // Whether the two boxes share any area once each grows by `margin` on every side.
    bool overlaps(const Box& other, double margin = 0) const {
        return left - margin < other.right + margin && other.left - margin < right + margin &&
               top - margin < other.bottom + margin && other.top - margin < bottom + margin;
    }
};

// The box of `<text x y font-size text-anchor>text</text>`: y is the baseline; DejaVu Sans rises
// 0.76 em (capitals, digits, ascenders) above it and falls 0.24 em below it.
inline Box text_box(double x, double y, double font_size, std::string_view anchor, std::string_view text) {
    const double width = text_width(text, font_size);
    const double left = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x;
    return {left, y - 0.76 * font_size, left + width, y + 0.24 * font_size};
}

}  // namespace ckpt::cli::svg
