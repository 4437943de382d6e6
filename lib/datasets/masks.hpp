// Segmentation masks that travel with images (--masks DIR): one label map per image, a
// single-channel file whose values are class ids (8- or 16-bit gray) or palette indices
// (palette PNGs, as Pascal VOC and many tools write them). The values are labels, never
// intensities: they are read and written exactly, palette PNGs keep their palette.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/image.hpp"

namespace aug::labels {

// A PNG palette: PLTE colours and, from tRNS, the alpha of the first alpha.size() entries
// (the others are opaque). alpha.size() <= colors.size() <= 256.
struct Palette {
  std::vector<std::array<std::uint8_t, 3>> colors;
  std::vector<std::uint8_t> alpha;
};

// image: 1 channel, U8 or U16, the label values (palette indices when palette is set; then U8).
struct Mask {
  Image image;
  std::optional<Palette> palette;
};

// Reads a mask file. PNG: 8- or 16-bit gray (1, 2 and 4-bit gray keep their raw values 0..2^n-1),
// or palette (any bit depth: one index per byte, not expanded to colours, palette kept).
// Other formats through decode_image, when they give one channel of 8 or 16 bits.
// Throws InputError naming the file: unreadable, broken, or not a single-channel label map
// (RGB, RGBA, gray + alpha).
Mask read_mask(const std::filesystem::path& file);

// The PNG bytes of a mask: a palette PNG (bit depth 8, same PLTE and tRNS) when mask.palette is
// set, else 8- or 16-bit grayscale. Throws InputError when the mask cannot be written so
// (not one channel of U8/U16, palette with U16, an index beyond the palette, a bad palette).
std::vector<std::uint8_t> encode_mask_png(const Mask& mask);

// The --masks folder: the mask of input `a/b/img.jpg` is DIR/a/b/img + suffix.
class MaskFolder {
 public:
  // suffix replaces the image's extension to name its mask: ".png" (default), "_mask.png",
  // "_gtFine_labelIds.png"... Throws UsageError when dir is not a folder or suffix is empty.
  explicit MaskFolder(std::filesystem::path dir, std::string suffix = ".png");

  const std::filesystem::path& dir() const { return dir_; }
  const std::string& suffix() const { return suffix_; }

  // Where the mask of the input with relative path `rel` ('/'-separated, under the input root)
  // would be: dir / parent(rel) / (stem(rel) + suffix). Whether or not it exists.
  std::filesystem::path path_for(const std::string& rel) const;

  // path_for(rel) when that is an existing file, else std::nullopt.
  std::optional<std::filesystem::path> find(const std::string& rel) const;

  // Where the mask of output `out_rel` goes: masks_out / parent(out_rel) / (stem(out_rel) + suffix).
  static std::filesystem::path output_path(const std::filesystem::path& masks_out, const std::string& out_rel,
                                           const std::string& suffix);

 private:
  std::filesystem::path dir_;
  std::string suffix_;
};

// Where a run's output masks go: `chosen` (--masks-output), or beside the output folder as the labels
// are: a folder named `images` has `masks` beside it (-o aug/images: aug/masks), any other OUT has
// OUT_masks.
std::filesystem::path masks_output_folder(const std::filesystem::path& output,
                                          const std::optional<std::filesystem::path>& chosen);
// The file of output `out_rel`'s mask in `folder`: the input suffix with its extension made .png
// (masks are written as PNG whatever they were read as).
std::filesystem::path mask_output_file(const std::filesystem::path& folder, const std::string& out_rel,
                                       const std::string& suffix);

}  // namespace aug::labels
