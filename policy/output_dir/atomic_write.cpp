// The atomic write and the three sidecar_without_* mutants that each drop one of its steps;
// with no mutant armed every step runs, in the order the header gives.
#include "policy/output_dir/atomic_write.hpp"

#include <exception>

#include "policy/base/mutants.hpp"

namespace ckpt {

using mutants::Mutant;

void write_file_atomically(FileSystem& fs, const std::string& path, const std::string& temp_path,
                           std::string_view contents) {
    if (mutants::is_active(Mutant::sidecar_without_temp_rename)) {
        fs.write_file(path, contents);
        fs.fsync_file(path);
        fs.fsync_dir(parent_path(path));
        return;
    }
    try {
        fs.write_file(temp_path, contents);
        if (!mutants::is_active(Mutant::sidecar_without_fsync)) {
            fs.fsync_file(temp_path);
        }
        fs.rename(temp_path, path);
    } catch (const std::exception&) {
        // The seed's `finally: unlink temp`. Only for real errors: see the header.
        try {
            if (fs.exists(temp_path)) {
                fs.unlink(temp_path);
            }
        } catch (const std::exception&) {
            // Keep the original error; on_train_begin removes leftovers anyway.
        }
        throw;
    }
    if (!mutants::is_active(Mutant::sidecar_without_dir_fsync)) {
        fs.fsync_dir(parent_path(path));
    }
}

}  // namespace ckpt
