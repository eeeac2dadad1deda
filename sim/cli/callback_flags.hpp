// The external-callback flags shared by run, replay, explore, shrink and mutants:
// --callback-command (the command's words, no shell), --callback-timeout, --no-callback-zygote,
// --callback-lookahead and --callback-restore. A bad
// value is a CLI11 error naming the flag (exit status 2). Docs: docs/external-callback.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/external/callback_spec.hpp"

namespace ckpt::cli {

struct CallbackFlags {
    std::string command;
    std::optional<double> timeout_seconds;
    bool no_zygote = false;
    std::size_t lookahead = sim::CallbackSpec{}.lookahead;
    std::string restore = "port";

    void add_to(CLI::App* command);
    bool given() const noexcept { return !command.empty(); }
    // The spec the flags describe, or nothing without --callback-command.
    std::optional<sim::CallbackSpec> spec() const;
};

}  // namespace ckpt::cli
