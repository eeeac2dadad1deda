// `ckptsim check-policy [--vectors FILE | --count N] -- COMMAND [ARGS...]`: runs another
// implementation of the `ckptsim policy` protocol on the conformance vectors and on random
// sequences, and reports the first divergence shrunk to its shortest input (exit 1).
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/cli/numeric_flags.hpp"
#include "sim/conformance/conformance_check.hpp"
#include "sim/conformance/vector_generator.hpp"

namespace ckpt::cli {
namespace {

namespace conformance = sim::conformance;

struct CheckPolicyOptions {
    std::string vectors_file;
    std::uint64_t count = 200;
    std::uint64_t random = 100;
    std::uint64_t seed = 1;
    double timeout_seconds = 10.0;
    std::vector<std::string> command;
};

constexpr std::uint64_t kMaxSequences = 1'000'000;

std::vector<conformance::ConformanceVector> vectors_to_run(const CheckPolicyOptions& options) {
    auto vectors = options.vectors_file.empty() ? conformance::generate_vectors(options.count, options.seed)
                                                : conformance::read_vector_file(options.vectors_file);
    auto rng = sim::Rng(options.seed).derive("check-policy-random");
    for (std::uint64_t i = 0; i < options.random; ++i) {
        vectors.push_back(conformance::random_vector(rng, "check-random", i));
    }
    return vectors;
}

int check_policy(const CheckPolicyOptions& options) {
    std::vector<conformance::ConformanceVector> vectors;
    try {
        vectors = vectors_to_run(options);
    } catch (const conformance::VectorFormatError& error) {
        std::cerr << "ckptsim check-policy: " << error.what() << "\n";
        return kExitBadInput;
    }
    const conformance::CheckOptions check{
        options.command, std::chrono::milliseconds(static_cast<long long>(options.timeout_seconds * 1000.0))};
    const auto result = conformance::check_vectors(check, vectors);
    if (result.first && result.first->not_started) {
        std::cerr << "ckptsim check-policy: COMMAND: " << result.first->what << "\n";
        return kExitBadInput;
    }
    if (result.first) {
        std::cout << "check-policy: " << conformance::format_divergence(*result.first, check);
        std::cout << "check-policy: " << result.vectors_diverging << " of " << result.vectors_run
                  << " sequences run diverge"
                  << (result.first->process_failure ? " (stopped at the first)" : "") << "\n";
        std::cout.flush();
        return kExitViolation;
    }
    std::cout << "check-policy: all " << result.vectors_run << " sequences agree ("
              << vectors.size() - options.random << " vectors, " << options.random << " random sequences)\n";
    std::cout.flush();
    return kExitOk;
}

}  // namespace

Command add_check_policy_command(CLI::App& parent) {
    auto options = std::make_shared<CheckPolicyOptions>();
    auto* command = parent.add_subcommand(
        "check-policy", "Check another implementation of the `ckptsim policy` protocol against the vectors");
    auto* file =
        command->add_option("--vectors", options->vectors_file, "A file written by `ckptsim vectors`")
            ->check(CLI::ExistingFile);
    command->add_option("--count", options->count, "Without --vectors: random vectors after the coverage set")
        ->check(unsigned_in(0, kMaxSequences))
        ->capture_default_str()
        ->excludes(file);
    command->add_option("--random", options->random, "Further random sequences, drawn from --seed")
        ->check(unsigned_in(0, kMaxSequences))
        ->capture_default_str();
    command->add_option("--seed", options->seed, "The seed of the generated vectors and random sequences")
        ->check(unsigned_in(0, UINT64_MAX))
        ->capture_default_str();
    command
        ->add_option("--timeout", options->timeout_seconds,
                     "Seconds one sequence may take before the implementation is killed")
        ->check(finite_positive(3600))
        ->capture_default_str();
    command->add_option("command", options->command, "After --: the implementation and its arguments")
        ->required();
    return {command, [options]() { return check_policy(*options); }};
}

}  // namespace ckpt::cli
