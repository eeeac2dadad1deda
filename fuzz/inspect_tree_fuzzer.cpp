// libFuzzer target: `inspect` over a small output directory that the input describes (see
// fuzz_support.hpp's build_tree). The inspector may refuse the directory with a FileSystemError
// but must otherwise report, and must never write: the tree is compared before and after.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "policy/inspect/output_dir_inspection.hpp"

namespace {

// Every path under `root` with its kind and contents, as one string.
std::string snapshot(ckpt::FileSystem& fs, const std::string& root, int depth = 0) {
    std::string out;
    if (depth > 8) {
        return out;
    }
    for (const auto& name : fs.list_dir(root)) {
        const auto path = ckpt::join_path(root, name);
        if (fs.is_symlink(path)) {
            out += "L " + path + " " + fs.readlink(path) + "\n";
        } else if (fs.is_dir(path)) {
            out += "D " + path + "\n" + snapshot(fs, path, depth + 1);
        } else {
            out += "F " + path + " " + fs.read_file(path) + "\n";
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ckpt;
    if (size > 64 * 1024) {
        return 0;
    }
    InMemoryFileSystem fs;
    fuzz::build_tree(fs, "/out", fuzz::as_text(data, size));
    const auto before = snapshot(fs, "/");
    try {
        const auto report = inspect_output_dir(fs, "/out");
        (void)report.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    } catch (const FileSystemError&) {
        // The directory itself could not be listed: the CLI's exit 2.
    }
    if (snapshot(fs, "/") != before) {
        __builtin_trap();  // inspect wrote
    }
    return 0;
}
