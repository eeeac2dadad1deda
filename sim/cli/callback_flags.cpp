// Parsing of the external-callback flags: the command is split into words when parsed, so an
// unbalanced quote is a usage error before anything runs.
#include "sim/cli/callback_flags.hpp"

#include <cmath>

namespace ckpt::cli {

void CallbackFlags::add_to(CLI::App* app) {
    auto* command_option =
        app->add_option("--callback-command", command,
                        "Run this external callback in place of the C++ port: a command, split into words "
                        "with no shell (docs/external-callback.md)")
            ->check([](const std::string& value) -> std::string {
                try {
                    sim::split_command_words(value);
                    return {};
                } catch (const std::invalid_argument& error) {
                    return std::string("--callback-command: ") + error.what();
                }
            });
    app->add_option("--callback-timeout", timeout_seconds,
                    "Wall-clock seconds the callback process may take to answer one message (default 30)")
        ->check(CLI::Range(0.001, 86400.0));
    app->add_flag("--no-callback-zygote", no_zygote,
                  "Start every callback process cold instead of forking it from a warm, pre-imported one "
                  "(for a module that reads its rank, the time or the environment at import time)");
    app->add_option("--callback-lookahead", lookahead,
                    "How many on_step_end calls of plain steps the callback process may run ahead of the "
                    "trainer, each checked against the call the trainer then makes (default 64; 0: every "
                    "call alone). The same verdicts and trace either way")
        ->check(CLI::Range(std::size_t{0}, std::size_t{100000}))
        ->needs(command_option);
    app->add_option(
           "--callback-restore", restore,
           "The stateful-callback machinery the external callback runs under: port (a changed argument "
           "refused on resume, the default) or transformers (a stock Trainer's, silent)")
        ->check(CLI::IsMember({"port", "transformers"}))
        ->needs(command_option);
}

std::optional<sim::CallbackSpec> CallbackFlags::spec() const {
    if (command.empty()) {
        return std::nullopt;
    }
    sim::CallbackSpec spec;
    spec.argv = sim::split_command_words(command);
    if (timeout_seconds) {
        spec.timeout =
            std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(*timeout_seconds * 1000.0)));
    }
    spec.shim_path = sim::default_shim_path();
    spec.zygote = !no_zygote;
    spec.lookahead = lookahead;
    spec.transformers_restore = restore == "transformers";
    return spec;
}

}  // namespace ckpt::cli
