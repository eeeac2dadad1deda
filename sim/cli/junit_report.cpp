// JUnit XML in the shape Jenkins, GitLab and GitHub test reporters read: <testsuites> holding one
// <testsuite>, whose <testcase> elements are the properties. Text is escaped for XML 1.0.
#include "sim/cli/junit_report.hpp"

#include <cstdio>

#include "sim/cli/xml_escape.hpp"

namespace ckpt::cli {

void write_junit(std::ostream& out, const sim::ExploreSummary& s, const std::vector<std::string>& replays) {
    std::uint64_t failures = 0;
    for (const auto count : s.violations_by_property) {
        failures += count > 0 ? 1 : 0;
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", s.wall_seconds);
    const std::string suite =
        "ckptsim explore seeds " + std::to_string(s.first_seed) + ".." + std::to_string(s.last_seed);
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites tests=\"" << sim::kPropertyCount << "\" failures=\"" << failures << "\" time=\""
        << seconds << "\">\n";
    out << "  <testsuite name=\"" << xml_escaped(suite) << "\" tests=\"" << sim::kPropertyCount
        << "\" failures=\"" << failures << "\" time=\"" << seconds << "\">\n";
    for (std::size_t i = 0; i < sim::kPropertyCount; ++i) {
        const auto& info = sim::kProperties[i];
        out << "    <testcase classname=\"ckptsim.properties\" name=\""
            << xml_escaped(std::string(info.id) + " " + std::string(info.name)) << "\">\n";
        for (std::size_t v = 0; v < s.violations.size(); ++v) {
            const auto& found = s.violations[v];
            for (const auto& violation : found.violations) {
                if (static_cast<std::size_t>(violation.property) != i) {
                    continue;
                }
                out << "      <failure message=\""
                    << xml_escaped("seed " + std::to_string(found.seed) + ": " + violation.message) << "\">"
                    << xml_escaped(std::string(info.statement) + "\n" + violation.message + "\n" +
                                   (v < replays.size() ? replays[v] : std::string()))
                    << "</failure>\n";
            }
        }
        out << "    </testcase>\n";
    }
    out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace ckpt::cli
