#include "lib/datasets/rle.hpp"

#include <stdexcept>

namespace aug::labels {

std::vector<std::uint32_t> rle_from_mask(const BinaryMask& mask) {
  std::vector<std::uint32_t> counts;
  const std::size_t w = static_cast<std::size_t>(mask.width), h = static_cast<std::size_t>(mask.height);
  if (mask.width <= 0 || mask.height <= 0) return {0};
  if (mask.data.size() != w * h) throw std::invalid_argument("mask data does not match its size");
  std::uint8_t current = 0;
  std::uint32_t run = 0;
  for (std::size_t x = 0; x < w; ++x) {
    for (std::size_t y = 0; y < h; ++y) {
      const std::uint8_t v = mask.data[y * w + x] != 0 ? 1 : 0;
      if (v != current) {
        counts.push_back(run);
        run = 0;
        current = v;
      }
      ++run;
    }
  }
  counts.push_back(run);
  return counts;
}

BinaryMask rle_to_mask(const std::vector<std::uint32_t>& counts, int height, int width) {
  if (height < 0 || width < 0) throw std::invalid_argument("negative mask size");
  const std::uint64_t total = static_cast<std::uint64_t>(height) * static_cast<std::uint64_t>(width);
  std::uint64_t sum = 0;
  for (const std::uint32_t c : counts) sum += c;
  if (sum != total)
    throw std::invalid_argument("counts cover " + std::to_string(sum) + " pixels, the size " +
                                std::to_string(height) + "x" + std::to_string(width) + " has " +
                                std::to_string(total));
  BinaryMask mask;
  mask.width = width;
  mask.height = height;
  mask.data.assign(static_cast<std::size_t>(total), 0);
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  std::size_t pos = 0;  // column-major index
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::size_t end = pos + counts[i];
    if (i % 2 == 1) {
      for (std::size_t p = pos; p < end; ++p) mask.data[(p % h) * w + p / h] = 1;
    }
    pos = end;
  }
  return mask;
}

std::uint64_t rle_area(const std::vector<std::uint32_t>& counts) {
  std::uint64_t area = 0;
  for (std::size_t i = 1; i < counts.size(); i += 2) area += counts[i];
  return area;
}

std::string rle_counts_to_string(const std::vector<std::uint32_t>& counts) {
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::int64_t x = counts[i];
    if (i > 2) x -= counts[i - 2];
    bool more = true;
    while (more) {
      int c = static_cast<int>(x & 0x1f);
      x >>= 5;  // arithmetic: keeps the sign
      more = (c & 0x10) ? x != -1 : x != 0;
      if (more) c |= 0x20;
      text.push_back(static_cast<char>(c + 48));
    }
  }
  return text;
}

std::vector<std::uint32_t> rle_counts_from_string(std::string_view text) {
  std::vector<std::uint32_t> counts;
  std::size_t p = 0;
  while (p < text.size()) {
    std::uint64_t bits = 0;
    int k = 0;
    bool more = true;
    while (more) {
      if (p >= text.size()) throw std::invalid_argument("the counts string ends inside a count");
      const int c = static_cast<unsigned char>(text[p]) - 48;
      if (c < 0 || c > 63)
        throw std::invalid_argument("character " + std::to_string(p) + " of the counts string is outside '0'..'o'");
      if (k >= 12) throw std::invalid_argument("a count in the counts string is too long");
      bits |= static_cast<std::uint64_t>(c & 0x1f) << (5 * k);
      more = (c & 0x20) != 0;
      ++p;
      ++k;
      if (!more && (c & 0x10)) bits |= ~std::uint64_t{0} << (5 * k);
    }
    std::int64_t x = static_cast<std::int64_t>(bits);
    if (counts.size() > 2) x += counts[counts.size() - 2];
    if (x < 0 || x > static_cast<std::int64_t>(UINT32_MAX))
      throw std::invalid_argument("count " + std::to_string(counts.size()) + " of the counts string is out of range");
    counts.push_back(static_cast<std::uint32_t>(x));
  }
  return counts;
}

}  // namespace aug::labels
