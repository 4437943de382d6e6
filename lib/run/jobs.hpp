// What a run will do, decided before any image is touched: the inputs (recursive, sorted, the
// shard's share), and each output's relative path from the name template.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/io/probe.hpp"

namespace aug {

namespace fs = std::filesystem;

// One input of a run. A run may hold hundreds of thousands: the folder listed is shared, not
// repeated in each (about 210 bytes an input with its job, docs/performance.md).
struct InputFile {
  std::shared_ptr<const std::string> root;  // the folder listed (a single file: its folder; may be empty)
  std::string rel;                          // relative to root, '/'-separated; keys the generator
  std::string path() const {                // the file
    if (!root || root->empty()) return rel;
    return root->back() == '/' ? *root + rel : *root + '/' + rel;
  }
};

// Image files (.jpg .jpeg .png .bmp .tif .tiff .webp, any case) under `input` (a folder,
// recursively, or a single file), sorted by relative path; with `keep`, only those whose relative
// path it keeps (one shard's: the others are never held). Throws UsageError when it is missing.
std::vector<InputFile> list_inputs(const fs::path& input,
                                   const std::function<bool(const std::string& rel)>& keep = {});

bool has_image_extension(const fs::path& p);

// An image file's size from its header, oriented as the decoder turns the pixels (EXIF orientation
// 5 to 8 swap the sides); nothing when the header cannot be read. Reads the first 128 KiB, the whole
// file only when the header lies past them.
std::optional<std::pair<int, int>> oriented_size(const fs::path& path);

// Shard k of n (0 <= k < n) takes the inputs whose relative path hashes to k: a file's shard
// does not depend on which other files exist.
bool in_shard(const std::string& rel, int k, int n);

// --name: placeholders {stem}, {ext} (with its dot) and {copy}; may contain '/' for subfolders.
class NameTemplate {
 public:
  static NameTemplate parse(const std::string& text);  // throws UsageError
  std::string render(const std::string& stem, const std::string& ext, std::uint32_t copy) const;
  bool uses_copy() const { return uses_copy_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool uses_copy_ = false;
};

}  // namespace aug
