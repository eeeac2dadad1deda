// The mutants file of an external callback: every malformed entry is refused naming its field,
// the command is pointed at the copy, and a mutant applies exactly once or not at all.
#include "sim/explore/callback_mutants.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "policy/tests/support/temp_dir.hpp"

namespace ckpt::sim {
namespace {

namespace fs = std::filesystem;

class CallbackMutants : public ::testing::Test {
  protected:
    fs::path folder() const { return fs::path(dir_.path()) / "callback"; }
    fs::path write(const std::string& name, const std::string& text) const {
        fs::create_directories(folder());
        std::ofstream(folder() / name, std::ios::trunc) << text;
        return folder() / name;
    }
    // The message load_callback_mutants refuses `text` with, or "" when it accepts it.
    std::string refusal(const std::string& text) const {
        try {
            load_callback_mutants(write("mutants.json", text));
            return {};
        } catch (const CallbackMutantsError& error) {
            return error.what();
        }
    }

    ckpt::testing::TempDir dir_{"ckptsim-callback-mutants"};
};

TEST_F(CallbackMutants, AMalformedFileIsRefusedNamingTheField) {
    EXPECT_NE(refusal("[").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal(R"({"mutants": []})").find("mutants: a non-empty array"), std::string::npos);
    EXPECT_NE(refusal(R"({"mutants": [1]})").find("mutants[0]: an object"), std::string::npos);
    const std::string good = R"({"name": "a", "file": "m.py", "find": "x", "replace": "y"})";
    EXPECT_EQ(refusal(R"({"mutants": [)" + good + "]}"), "");
    EXPECT_NE(refusal(R"({"mutants": [)" + good + "," + good + "]}").find("mutants[1].name"),
              std::string::npos);
    EXPECT_NE(
        refusal(R"({"mutants": [{"name": "a", "file": "m.py", "find": "x"}]})").find("mutants[0].replace"),
        std::string::npos);
    EXPECT_NE(refusal(R"({"mutants": [{"name": "a b", "file": "m.py", "find": "x", "replace": "y"}]})")
                  .find("mutants[0].name"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"mutants": [{"name": "a", "file": "../m.py", "find": "x", "replace": "y"}]})")
                  .find("mutants[0].file"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"mutants": [{"name": "a", "file": "m.py", "find": "x", "replace": "x"}]})")
                  .find("changes nothing"),
              std::string::npos);
}

TEST_F(CallbackMutants, TheCommandIsPointedAtTheCopy) {
    CallbackSpec spec;
    spec.argv = {"python3", "--path", "examples/cb", "--binding", "examples/cb/b.py:B", "m:C"};
    const auto copy = spec_for_copy(spec, "examples/cb", "/work/out/copy");
    EXPECT_EQ(copy.argv[2], "/work/out/copy");
    EXPECT_EQ(copy.argv[4], "/work/out/copy/b.py:B");
    EXPECT_EQ(copy.argv[5], "m:C");
    EXPECT_THROW(spec_for_copy(spec, "elsewhere", "/work/out/copy"), CallbackMutantsError);
}

TEST_F(CallbackMutants, AMutantAppliesExactlyOnceToACopy) {
    write("m.py", "a = 1\nb = 1\n");
    const auto copy = fs::path(dir_.path()) / "copies" / "one";
    write_mutated_copy({"one", "m.py", "b = 1", "b = 2"}, folder(), copy);
    std::ifstream in(copy / "m.py");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "a = 1\nb = 2\n");
    std::ifstream original(folder() / "m.py");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(original), {}), "a = 1\nb = 1\n");
    EXPECT_THROW(write_mutated_copy({"twice", "m.py", "= 1", "= 3"}, folder(), copy), CallbackMutantsError);
    EXPECT_THROW(write_mutated_copy({"never", "m.py", "c = 1", "c = 2"}, folder(), copy),
                 CallbackMutantsError);
}

}  // namespace
}  // namespace ckpt::sim
