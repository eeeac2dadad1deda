// Crash-safe replacement of one file (temp, fsync, rename, directory fsync), the only way the
// sidecar is written. A crash at any point leaves the old bytes or the new, never a mixture; an
// I/O error removes the temp file and rethrows. Depends on the FileSystem port only.
#pragma once

#include <string>
#include <string_view>

#include "policy/ports/file_system.hpp"

namespace ckpt {

// Replaces `path` with `contents` so that a crash at any point leaves either the old file or
// the new one, never a mixture: write a temp file in the same directory, fsync it, rename it
// over `path`, then fsync the directory. The last step is what makes the rename itself survive
// power loss (ALICE); without it a machine crash can silently roll the file back.
//
// `temp_path` must be in the same directory as `path`. On an I/O error the temp file is
// removed and the error rethrown. A simulated crash is not a std::exception and runs no
// cleanup, as a killed process would not.
void write_file_atomically(FileSystem& fs, const std::string& path, const std::string& temp_path,
                           std::string_view contents);

}  // namespace ckpt
