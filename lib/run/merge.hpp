// `augment merge`: the per-shard files of a run split with --shard joined into the one file a run
// over everything writes.
//   manifests (.jsonl)  every record once, in the order of the inputs (as one run writes them);
//                       an output recorded by several shards keeps its full record over an
//                       "exists" or "error" one, and two full records that differ are an error
//   COCO files (.json)  one document: the shards' images and annotations in file-name order, their
//                       ids kept when they are unique across the shards (as one run keeps them)
//                       and numbered 1..n otherwise; every other key (categories, info, ...) must
//                       be the same in every file
// The result is written atomically; nothing is written when the files disagree.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace aug {

struct MergeSummary {
  std::string kind;            // "manifest" or "COCO"
  std::size_t files = 0;
  std::size_t records = 0;     // manifest records or COCO images written
  std::size_t duplicates = 0;  // records or images found in more than one file
};

// Throws UsageError (exit 1, nothing written) for a missing file, mixed kinds, an output that is one
// of the inputs, and malformed or disagreeing contents, naming the file (and line).
MergeSummary merge_files(const std::vector<std::filesystem::path>& files, const std::filesystem::path& output);

}  // namespace aug
