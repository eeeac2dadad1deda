// The "Debugging a failure" walkthrough (docs/reading-a-run.md), run as written: the shell block
// after the `walkthrough-commands` marker is split into commands, each run against the built
// ckptsim in a fresh directory, in order, and held to the exit status its `# exit N` comment
// states. The seed and mutant it starts from must be a row of the mutant kill table
// (docs/mutation-testing.md).
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/tests/support/subprocess.hpp"

namespace ckpt::cli {
namespace {

using ckpt::testing::CkptsimProcessTest;
using ckpt::testing::read_all;

constexpr std::string_view kMarker = "<!-- walkthrough-commands";
constexpr std::string_view kProgram = "./build/release/sim/ckptsim";

struct WalkthroughCommand {
    std::vector<std::string> args;  // after the program
    int exit_code = -1;
    std::string text;
};

// The lines of the first ```sh block after the marker.
std::vector<std::string> walkthrough_block(const std::string& doc) {
    const auto marker = doc.find(kMarker);
    if (marker == std::string::npos) {
        return {};
    }
    std::istringstream in(doc.substr(marker));
    std::vector<std::string> lines;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (!inside) {
            inside = line == "```sh";
        } else if (line == "```") {
            break;
        } else {
            lines.push_back(line);
        }
    }
    return lines;
}

std::vector<WalkthroughCommand> parse_commands(const std::vector<std::string>& lines) {
    static const std::regex exit_comment(R"(^(.*\S)\s+#\s*exit (\d+)\b.*$)");
    std::vector<WalkthroughCommand> commands;
    for (const auto& line : lines) {
        if (line.empty() || line.front() == '#') {
            continue;
        }
        std::smatch match;
        EXPECT_TRUE(std::regex_match(line, match, exit_comment)) << "no '# exit N' on: " << line;
        if (match.empty()) {
            continue;
        }
        WalkthroughCommand command{{}, std::stoi(match[2]), line};
        std::istringstream words(match[1].str());
        std::string program;
        words >> program;
        EXPECT_EQ(program, kProgram) << line;
        for (std::string word; words >> word;) {
            EXPECT_EQ(word.find_first_of("'\"$|&;<>`\\*"), std::string::npos) << "shell syntax in: " << line;
            command.args.push_back(word);
        }
        commands.push_back(command);
    }
    return commands;
}

bool has(const WalkthroughCommand& c, const std::string& word) {
    return std::find(c.args.begin(), c.args.end(), word) != c.args.end();
}
std::string after(const WalkthroughCommand& c, const std::string& flag) {
    const auto it = std::find(c.args.begin(), c.args.end(), flag);
    return it != c.args.end() && it + 1 != c.args.end() ? *(it + 1) : std::string();
}

class ReadmeWalkthrough : public CkptsimProcessTest {
  protected:
    ReadmeWalkthrough() : CkptsimProcessTest("ckptsim-walkthrough") {}
};

TEST_F(ReadmeWalkthrough, EveryCommandRunsAsTheReadmeSays) {
    const auto walkthrough = read_all(CKPT_WALKTHROUGH_DOC);
    const auto mutant_table = read_all(CKPT_MUTANT_TABLE_DOC);
    const auto commands = parse_commands(walkthrough_block(walkthrough));
    ASSERT_GE(commands.size(), 5U) << "the walkthrough block after '" << kMarker << "' is missing or short";
    // It covers each step: run under a mutant, shrink, the text trace, the timeline, the real code.
    const auto any = [&](auto&& holds) { return std::any_of(commands.begin(), commands.end(), holds); };
    EXPECT_TRUE(any([](const auto& c) { return c.args[0] == "run" && has(c, "--mutant"); }));
    EXPECT_TRUE(any([](const auto& c) { return c.args[0] == "shrink"; }));
    EXPECT_TRUE(any([](const auto& c) { return c.args[0] == "replay" && has(c, "--trace-text"); }));
    EXPECT_TRUE(any([](const auto& c) { return c.args[0] == "replay" && has(c, "--svg"); }));
    EXPECT_TRUE(any([](const auto& c) { return after(c, "--mutant") == "none"; }));

    // The failing seed is the one the mutant table gives for that mutant.
    const auto& first = commands.front();
    ASSERT_EQ(first.args[0], "run");
    // A row of the pasted text table: the mutant, "yes", the property, the seed, each column
    // separated by whitespace.
    std::string row_pattern = "\n";
    row_pattern += after(first, "--mutant");
    row_pattern += R"(\s+yes\s+P[0-9]+\s+)";
    row_pattern += after(first, "--seed");
    row_pattern += R"(\s)";
    const std::regex row(row_pattern);
    EXPECT_TRUE(std::regex_search(mutant_table, row))
        << "seed " << after(first, "--seed") << " of " << after(first, "--mutant")
        << " is not in the mutant table";

    for (const auto& command : commands) {
        const auto done = ckptsim(command.args);
        EXPECT_EQ(done.exit_code, command.exit_code) << command.text << "\n" << done.out << done.err;
        for (const auto* flag : {"--out", "--svg"}) {
            const auto written = after(command, flag);
            if (!written.empty()) {
                EXPECT_TRUE(std::filesystem::exists(dir() / written)) << command.text;
            }
        }
        if (has(command, "--svg")) {
            EXPECT_THAT(read_all(dir() / after(command, "--svg")), ::testing::HasSubstr("<svg"));
        }
        if (has(command, "--trace-text")) {
            EXPECT_THAT(done.out, ::testing::HasSubstr("violation"));
        }
    }
}

}  // namespace
}  // namespace ckpt::cli
