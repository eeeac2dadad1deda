// Word splitting for --callback-command: quotes and backslashes only, so the words a user
// typed reach argv exactly, with no shell in between.
#include "sim/external/callback_spec.hpp"

#include <cstdlib>
#include <stdexcept>

namespace ckpt::sim {

std::vector<std::string> split_command_words(std::string_view command) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (quote == '\'') {
            if (c == '\'') {
                quote = 0;
            } else {
                word.push_back(c);
            }
        } else if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && i + 1 < command.size() &&
                       std::string_view("\"\\$`").find(command[i + 1]) != std::string_view::npos) {
                word.push_back(command[++i]);
            } else {
                word.push_back(c);
            }
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
        } else {
            in_word = true;
            if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                if (i + 1 == command.size()) {
                    throw std::invalid_argument("a backslash ends the command");
                }
                word.push_back(command[++i]);
            } else {
                word.push_back(c);
            }
        }
    }
    if (quote != 0) {
        throw std::invalid_argument(std::string("an unbalanced ") + quote + " quote");
    }
    if (in_word) {
        words.push_back(std::move(word));
    }
    if (words.empty()) {
        throw std::invalid_argument("the command is empty");
    }
    return words;
}

std::string default_shim_path() {
    if (const char* set = std::getenv("CKPTSIM_SHIM_PATH"); set != nullptr && *set != '\0') {
        return set;
    }
    return CKPTSIM_SHIM_DIR;
}

}  // namespace ckpt::sim
