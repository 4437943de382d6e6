// COCO run-length encoding of binary masks (docs/labels.md).
//
// COCO stores a mask as run lengths over its pixels in column-major (Fortran) order: the runs
// alternate 0 and 1, starting with a run of zeros (which may be empty). The counts are written
// either as a JSON list of integers ("uncompressed") or as pycocotools' string form
// ("compressed"): each count, from the fourth on stored as the difference to the count two
// before it, in little-endian groups of 5 bits, one character per group (value + 48), bit 0x20
// set on every group but the last, and the top bit (0x10) of the last group sign-extended.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/labels/labels.hpp"

namespace aug::labels {

// The column-major run lengths of a row-major mask (any nonzero byte is 1).
std::vector<std::uint32_t> rle_from_mask(const BinaryMask& mask);

// The row-major 0/1 mask of height x width pixels the counts describe. Throws
// std::invalid_argument when the counts do not add up to height * width or a size is negative.
BinaryMask rle_to_mask(const std::vector<std::uint32_t>& counts, int height, int width);

// The pixels set in the mask the counts describe (the odd runs).
std::uint64_t rle_area(const std::vector<std::uint32_t>& counts);

// pycocotools' string form of the counts and back. rle_counts_from_string throws
// std::invalid_argument on a character outside '0'..'o', a string that ends inside a count, or a
// count that falls outside 0..2^32-1.
std::string rle_counts_to_string(const std::vector<std::uint32_t>& counts);
std::vector<std::uint32_t> rle_counts_from_string(std::string_view text);

}  // namespace aug::labels
