// The external-callback channel against hostile processes, written as shell one-liners so the
// tests need no Python: garbage, an oversized line, an early exit, silence, a missing command.
// Each must end as a HarnessError that names what happened, never a hang or a crash here.
#include "sim/external/callback_process.hpp"

#include <gtest/gtest.h>

#include "sim/base/harness_error.hpp"

namespace ckpt::sim {
namespace {

CallbackSpec shell(const std::string& script, int timeout_ms = 5'000) {
    CallbackSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.timeout = std::chrono::milliseconds(timeout_ms);
    spec.zygote = false;  // a shell line is no fork server
    return spec;
}

std::string failure_of(const CallbackSpec& spec) {
    try {
        CallbackProcess process(spec, CallbackIdentity{});
    } catch (const HarnessError& error) {
        return error.what();
    }
    return "(no harness error)";
}

constexpr const char* kReady = R"(printf '{"t":"ready","protocol":2,"class":"C"}\n' >&3; )";

TEST(CallbackProcess, AGarbageLineIsAHarnessErrorNamingIt) {
    const auto message = failure_of(shell("echo 'not json' >&3; sleep 30"));
    EXPECT_NE(message.find("malformed line"), std::string::npos) << message;
    EXPECT_NE(message.find("< not json"), std::string::npos) << message;  // the last exchanges
}

TEST(CallbackProcess, AnEarlyExitNamesItsStatusAndItsOutput) {
    const auto message = failure_of(shell("echo 'Traceback: boom' >&2; exit 3"));
    EXPECT_NE(message.find("exited with status 3"), std::string::npos) << message;
    EXPECT_NE(message.find("Traceback: boom"), std::string::npos) << message;
}

TEST(CallbackProcess, SilencePastTheDeadlineIsKilledAndNamed) {
    const auto started = std::chrono::steady_clock::now();
    const auto message = failure_of(shell("sleep 30", 300));
    EXPECT_NE(message.find("no answer within 300 ms"), std::string::npos) << message;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(CallbackProcess, ALineOverSixteenMebibytesIsRefused) {
    const auto message = failure_of(shell("head -c 20000000 /dev/zero | tr '\\0' a >&3; sleep 30"));
    EXPECT_NE(message.find("longer than 16 MiB"), std::string::npos) << message;
}

TEST(CallbackProcess, AMissingCommandCannotStart) {
    CallbackSpec spec;
    spec.argv = {"/nonexistent/ckptsim-callback"};
    spec.zygote = false;
    const auto message = failure_of(spec);
    EXPECT_NE(message.find("could not be started"), std::string::npos) << message;
}

TEST(CallbackProcess, AFirstLineThatIsNotReadyIsRefused) {
    const auto message = failure_of(shell(R"(printf '{"t":"return","id":1}\n' >&3; sleep 30)"));
    EXPECT_NE(message.find("is not {\"t\":\"ready\""), std::string::npos) << message;
}

TEST(CallbackProcess, TheEnvironmentTellsTheProcessWhoItIs) {
    // The process answers its identity back in the ready line's class.
    CallbackIdentity identity;
    identity.rank = 2;
    identity.world_size = 3;
    identity.incarnation = 4;
    identity.stream = 99;
    CallbackProcess process(
        shell(
            R"(printf '{"t":"ready","protocol":2,"class":"%s-%s-%s-%s-%s-%s"}\n' "$CKPTSIM_FD" "$CKPTSIM_RANK" )"
            R"("$CKPTSIM_WORLD_SIZE" "$CKPTSIM_INCARNATION" "$CKPTSIM_STREAM" "$PYTHONHASHSEED" >&3; sleep 30)"),
        identity);
    EXPECT_EQ(process.ready()["class"], "3-2-3-4-99-0");
}

TEST(CallbackProcess, ExchangesLinesAndAShutdownEndsTheProcess) {
    CallbackProcess process(
        shell(std::string(kReady) + R"(read line <&3; printf '{"t":"return","id":1}\n' >&3; )"
                                    R"(read line <&3; exit 0)"),
        CallbackIdentity{});
    process.send({{"t", "call"}, {"id", 1}, {"fn", "consume_checkpoint_evaluation"}});
    EXPECT_EQ(process.receive()["t"], "return");
    const auto started = std::chrono::steady_clock::now();
    process.shutdown();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
}

TEST(CallbackProcess, AProcessThatClosesTheChannelMidCallIsNamed) {
    CallbackProcess process(shell(std::string(kReady) + "exec 3>&-; sleep 30"), CallbackIdentity{});
    try {
        process.receive();
        FAIL() << "no harness error";
    } catch (const HarnessError& error) {
        EXPECT_NE(std::string(error.what()).find("closed the channel"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace ckpt::sim

namespace ckpt::sim {
namespace {

TEST(CallbackZygote, ACommandThatIsNoForkServerIsAHarnessError) {
    auto spec = shell(R"(printf '{"t":"ready","protocol":2,"class":"C"}\n' >&3; sleep 30)");
    spec.zygote = true;
    const auto message = failure_of(spec);
    EXPECT_NE(message.find("zygote answered CKPTSIM_ZYGOTE=1"), std::string::npos) << message;
}

TEST(CallbackZygote, AZygoteThatDiesIsAHarnessErrorAndTheNextSpawnStartsAnother) {
    auto spec = shell(R"(printf '{"t":"zygote_ready","protocol":2}\n' >&3; exit 0)");
    spec.zygote = true;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const auto message = failure_of(spec);
        // It may be gone before the request (refused) or after it (closed): both name the zygote.
        EXPECT_NE(message.find("external callback zygote"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace ckpt::sim
