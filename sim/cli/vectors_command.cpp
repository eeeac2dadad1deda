// `ckptsim vectors`: writes the conformance vectors (docs/policy-protocol.md) as JSON Lines,
// to stdout or --out. The same seed and count always write the same bytes.
#include <fstream>
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/conformance/vector_generator.hpp"

namespace ckpt::cli {
namespace {

struct VectorsOptions {
    std::uint64_t count = 200;
    std::uint64_t seed = 1;
    std::string out = "-";
};

constexpr std::uint64_t kMaxRandomVectors = 1'000'000;

int write_vectors(const VectorsOptions& options) {
    const auto vectors = sim::conformance::generate_vectors(options.count, options.seed);
    std::ofstream file;
    if (options.out != "-") {
        file.open(options.out, std::ios::binary | std::ios::trunc);
        if (!file) {
            std::cerr << "ckptsim vectors: --out: cannot write '" << options.out << "'\n";
            return kExitBadInput;
        }
    }
    std::ostream& out = options.out == "-" ? std::cout : file;
    for (const auto& vector : vectors) {
        out << sim::conformance::vector_to_json(vector).dump() << '\n';
    }
    out.flush();
    if (!out) {
        std::cerr << "ckptsim vectors: --out: writing '" << options.out << "' failed\n";
        return kExitBadInput;
    }
    if (options.out != "-") {
        std::cerr << "ckptsim vectors: wrote " << vectors.size() << " vectors ("
                  << vectors.size() - options.count << " coverage, " << options.count << " random) to "
                  << options.out << "\n";
    }
    return kExitOk;
}

}  // namespace

Command add_vectors_command(CLI::App& parent) {
    auto options = std::make_shared<VectorsOptions>();
    auto* command = parent.add_subcommand(
        "vectors", "Write conformance vectors for the `ckptsim policy` protocol as JSON Lines");
    command->add_option("--count", options->count, "Random vectors after the fixed coverage set")
        ->check(unsigned_in(0, kMaxRandomVectors))
        ->capture_default_str();
    command->add_option("--seed", options->seed, "The seed the random vectors are drawn from")
        ->check(unsigned_in(0, UINT64_MAX))
        ->capture_default_str();
    command->add_option("--out", options->out, "The file to write ('-': stdout)")->capture_default_str();
    return {command, [options]() { return write_vectors(*options); }};
}

}  // namespace ckpt::cli
