// A file's bytes as a few runs, each the leading part of a buffer that never changes below that
// length (its writer only appends). Files written whole are one run; a writer that appends to a
// record at every save (Transformers' log_history) lets each save's file share the record's
// buffer instead of copying it, and a reader that remembers what it learnt of a buffer's prefix
// can go on from there. Depends on nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace ckpt {

class FileBytes {
  public:
    // At most this many runs: a document with one shared record in its middle needs three.
    static constexpr std::size_t kMaxRuns = 4;

    struct Run {
        // Never null. Its first `length` bytes never change: the owner may append, nothing else.
        std::shared_ptr<const std::string> buffer;
        std::size_t length = 0;

        std::string_view view() const noexcept { return {buffer->data(), length}; }
    };

    FileBytes() = default;
    // One run owning `bytes`, moved in or copied.
    explicit FileBytes(std::string&& bytes);
    explicit FileBytes(std::string_view bytes);
    // The runs in order; empty runs are dropped. Throws std::invalid_argument for more than
    // kMaxRuns runs, a null buffer, or a length beyond its buffer's size.
    explicit FileBytes(std::initializer_list<Run> runs);

    const Run* begin() const noexcept { return runs_.data(); }
    const Run* end() const noexcept { return runs_.data() + count_; }
    std::size_t run_count() const noexcept { return count_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

    // The bytes joined into one string.
    std::string str() const;
    // The first `length` bytes (all of them when `length` is larger), joined.
    std::string prefix(std::size_t length) const;
    // Whether these are exactly `bytes`, compared run by run without joining.
    bool equals(std::string_view bytes) const noexcept;
    // The same bytes. Runs over the same buffers and lengths are equal without reading them.
    bool equals(const FileBytes& other) const noexcept;

  private:
    std::array<Run, kMaxRuns> runs_{};
    std::uint8_t count_ = 0;
    std::size_t size_ = 0;
};

}  // namespace ckpt
