// The regression corpus folder (properties/corpus), which the corpus test replays and the
// regeneration tests rewrite; CMake passes its path as CKPT_CORPUS_DIR.
#pragma once

#include <filesystem>

namespace ckpt::properties {

inline const std::filesystem::path kCorpus = CKPT_CORPUS_DIR;

}  // namespace ckpt::properties
