// The trace spool: lines appended to std::tmpfile (removed by the system when closed), read back
// from the start whenever a consumer asks.
#include "sim/cli/trace_spool.hpp"

#include "sim/world/scenario_file.hpp"

namespace ckpt::cli {
namespace {

[[noreturn]] void spool_failed(const char* what) {
    throw sim::ScenarioError(std::string("the trace spool (a temporary file) could not be ") + what);
}

}  // namespace

TraceSpool::TraceSpool() : file_(std::tmpfile()) {
    if (file_ == nullptr) {
        spool_failed("created");
    }
}

TraceSpool::~TraceSpool() {
    std::fclose(file_);
}

void TraceSpool::line(std::string_view text) {
    if (reading_ && std::fseek(file_, 0, SEEK_END) != 0) {
        spool_failed("appended to");
    }
    reading_ = false;
    // The readable trace's own test for a violation line (trace_text.hpp's first_violation_line).
    if (!violation_seen_ && text.find("\"kind\":\"violation\"") != std::string_view::npos) {
        violation_seen_ = true;
        first_violation_ = lines_;
    }
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fputc('\n', file_) == EOF) {
        spool_failed("written");
    }
    ++lines_;
    if (!violation_seen_) {
        first_violation_ = lines_;
    }
}

void TraceSpool::rewind() const {
    reading_ = true;
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) {
        spool_failed("read");
    }
}

std::vector<std::string> TraceSpool::read(std::size_t count) const {
    rewind();
    std::vector<std::string> lines;
    std::string current;
    for (int c = 0; lines.size() < count && (c = std::fgetc(file_)) != EOF;) {
        if (c == '\n') {
            lines.push_back(std::move(current));
            current.clear();
        } else {
            current.push_back(static_cast<char>(c));
        }
    }
    if (std::ferror(file_) != 0) {
        spool_failed("read");
    }
    return lines;
}

void TraceSpool::copy_to(std::ostream& out) const {
    rewind();
    char buffer[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file_)) > 0) {
        out.write(buffer, static_cast<std::streamsize>(got));
    }
    if (std::ferror(file_) != 0) {
        spool_failed("read");
    }
}

}  // namespace ckpt::cli
