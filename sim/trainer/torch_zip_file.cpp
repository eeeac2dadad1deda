// The zip layout of torch_zip_file.hpp: little-endian fields, one stored entry.
#include "sim/trainer/torch_zip_file.hpp"

namespace ckpt::sim::transformers {
namespace {

constexpr std::string_view kLocalHeader = "PK\x03\x04";
constexpr std::string_view kCentralHeader = "PK\x01\x02";
constexpr std::string_view kEndOfCentralDirectory = "PK\x05\x06";
constexpr std::size_t kEndRecordSize = 22;
constexpr std::string_view kEntryName = "archive/data.pkl";

// A field of 2 or 4 bytes, least significant first.
void put_le(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xffU));
    }
}

std::uint64_t get_le(std::string_view bytes, std::size_t at, int width) {
    std::uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
        value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    return value;
}

}  // namespace

std::string pickled_weights_file(std::int64_t step) {
    const std::string payload = "weights@" + std::to_string(step);
    std::string out(kLocalHeader);
    out.append(22, '\0');  // version, flags, method (stored), time, date, crc, sizes: unread here
    put_le(out, kEntryName.size(), 2);
    put_le(out, 0, 2);  // extra field length
    out += kEntryName;
    out += payload;
    const std::size_t central_offset = out.size();
    out += kCentralHeader;
    out.append(24, '\0');
    put_le(out, kEntryName.size(), 2);
    out.append(12, '\0');  // extra, comment, disk, attributes
    put_le(out, 0, 4);     // the local header's offset
    out += kEntryName;
    const std::size_t central_size = out.size() - central_offset;
    out += kEndOfCentralDirectory;
    put_le(out, 0, 4);  // this disk, the directory's disk
    put_le(out, 1, 2);  // entries on this disk
    put_le(out, 1, 2);  // entries in all
    put_le(out, central_size, 4);
    put_le(out, central_offset, 4);
    put_le(out, 0, 2);  // comment length
    return out;
}

bool loads_as_torch_zip(std::string_view bytes) {
    if (bytes.size() < kEndRecordSize + kLocalHeader.size() || !bytes.starts_with(kLocalHeader)) {
        return false;
    }
    const std::size_t end_record = bytes.size() - kEndRecordSize;
    if (bytes.substr(end_record, kEndOfCentralDirectory.size()) != kEndOfCentralDirectory ||
        get_le(bytes, end_record + 20, 2) != 0) {
        return false;
    }
    const auto central_size = get_le(bytes, end_record + 12, 4);
    const auto central_offset = get_le(bytes, end_record + 16, 4);
    return central_offset + central_size == end_record &&
           bytes.substr(central_offset, kCentralHeader.size()) == kCentralHeader;
}

}  // namespace ckpt::sim::transformers
