// check-policy's engine: runs each vector against the implementation (one fresh subprocess per
// vector, started with the vector's configuration flags), finds the divergences, and shrinks
// the shortest one to the fewest inputs that still show it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/conformance/conformance_vector.hpp"

namespace ckpt::sim::conformance {

struct CheckOptions {
    std::vector<std::string> command;  // the implementation and its own arguments
    std::chrono::milliseconds timeout{10000};
};

// What an implementation got wrong, on the shortest input sequence found.
struct Divergence {
    std::string vector_id;
    PolicySettings settings;
    std::vector<std::string> inputs;  // the lines it was given
    std::size_t at = 0;               // the input whose answer differs, or that went unanswered
    std::string what;                 // the difference, in words
    std::optional<nlohmann::json> expected;
    std::optional<std::string> actual;
    bool process_failure = false;  // it hung, died, or did not answer one JSON line per input
    bool not_started = false;      // the command could not be started at all (bad input)
    std::size_t shrunk_from = 0;   // the length of the vector it was found in
};

struct CheckResult {
    std::optional<Divergence> first;  // the shrunk divergence, when any vector diverges
    std::size_t vectors_run = 0;
    std::size_t vectors_diverging = 0;
};

// Runs one sequence; empty when every answer agrees and the process ended by itself.
std::optional<Divergence> run_sequence(const CheckOptions& options, const PolicySettings& settings,
                                       const std::vector<std::string>& inputs,
                                       const std::vector<nlohmann::json>& expected);

// Runs every vector. A process failure stops the run at once (it would repeat on every vector);
// otherwise the divergence with the shortest failing prefix is shrunk and reported.
CheckResult check_vectors(const CheckOptions& options, const std::vector<ConformanceVector>& vectors);

// The report: the vector, the command line, the numbered inputs, expected and actual answers,
// and a shell line that reproduces it.
std::string format_divergence(const Divergence& divergence, const CheckOptions& options);

}  // namespace ckpt::sim::conformance
