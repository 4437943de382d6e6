// Comparing two images of the same shape, as verify-devices reports it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"

namespace aug {

// Where two images differ and how: differences that stay near single values scattered like
// rounding (isolated), ones that gather along edges, borders or blocks (clustered), or a shift of
// most of the image (global).
enum class Pattern { None, Isolated, Clustered, Global };
const char* pattern_name(Pattern p);

struct Difference {
  std::uint64_t values = 0;     // values compared
  std::uint64_t differing = 0;  // values whose absolute difference exceeds 0
  std::uint64_t over = 0;       // values whose absolute difference exceeds the tolerance
  double max_abs = 0;
  double mean_abs = 0;
  double psnr = 0;              // dB against the sample type's range; infinity when identical
  struct Worst {
    int x = -1, y = -1, c = -1;
    double a = 0, b = 0;
  } worst;
  // Counts of differing values by size: for integer images |d| = 1, 2, 3, 4-7, 8-15, 16-31, 32-63,
  // >= 64 levels; for float images |d| in (0, 1e-7], (1e-7, 1e-6], ..., (1e-2, 1e-1], > 1e-1.
  std::vector<std::uint64_t> histogram;
  Pattern pattern = Pattern::None;

  double differing_percent() const { return values ? 100.0 * differing / values : 0; }
  nlohmann::json to_json() const;
};

// The bins' labels, for reports.
std::vector<std::string> histogram_labels(DType t);

Difference compare_images(const Image& a, const Image& b, double tolerance);

// Two files byte for byte, as a Difference over 8-bit values: `values` is the longer file's length;
// a byte the shorter file lacks differs by 255. PSNR over those values; the pattern is None when the
// files are identical, Global otherwise (a changed byte of entropy-coded data moves all that follows).
Difference compare_bytes(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b);

// Converts `im` to sample type `t` (u8 <-> u16 <-> f32 on the [0, max] / [0, 1] scales, rounding half
// to even), for comparing the same image processed as different types.
Image convert_dtype(const Image& im, DType t);

}  // namespace aug
