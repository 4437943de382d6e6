#include "lib/run/tile.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/masks.hpp"
#include "lib/io/files.hpp"
#include "lib/io/probe.hpp"
#include "lib/labels/transform.hpp"
#include "lib/run/jobs.hpp"

namespace aug {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<int> tile_offsets(int n, int size, double overlap) {
  if (n <= size) return {0};
  const int shared = static_cast<int>(std::lround(overlap * size));
  const int stride = std::max(1, size - shared);
  std::vector<int> at;
  for (int x = 0; x + size < n; x += stride) at.push_back(x);
  at.push_back(n - size);  // flush with the far edge
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return at;
}

namespace {

struct Cut {
  int x = 0, y = 0, w = 0, h = 0;
  std::string out_rel;
};

// The pixels of `r` in `img` as an image of their own.
Image crop_image(const Image& img, const Cut& r) {
  const Shape& s = img.shape();
  Image out(Shape{r.w, r.h, s.channels, s.dtype});
  const std::size_t px = static_cast<std::size_t>(s.channels) * sample_size(s.dtype);
  const ImageRef in = img.ref(), o = out.ref();
  const auto* src = static_cast<const std::uint8_t*>(in.data);
  auto* dst = static_cast<std::uint8_t*>(o.data);
  for (int y = 0; y < r.h; ++y)
    std::memcpy(dst + static_cast<std::size_t>(y) * o.pitch,
                src + static_cast<std::size_t>(r.y + y) * in.pitch + static_cast<std::size_t>(r.x) * px,
                static_cast<std::size_t>(r.w) * px);
  return out;
}

// The labels of one tile: object masks cropped, the rest moved by the tile's offset and filtered by
// the rules (an object mostly outside the tile leaves it).
labels::LabelCounts tile_labels(labels::ImageLabels& l, const Cut& r, const labels::LabelRules& rules) {
  for (labels::Object& o : l.objects) {
    if (!o.mask) continue;
    labels::BinaryMask m{r.w, r.h, std::vector<std::uint8_t>(static_cast<std::size_t>(r.w) * r.h, 0)};
    for (int y = 0; y < r.h && r.y + y < o.mask->height; ++y)
      for (int x = 0; x < r.w && r.x + x < o.mask->width; ++x)
        m.data[static_cast<std::size_t>(y) * r.w + x] =
            o.mask->data[static_cast<std::size_t>(r.y + y) * o.mask->width + (r.x + x)];
    o.mask = std::move(m);
  }
  Motion shift;
  shift.matrix = {1, 0, -static_cast<double>(r.x), 0, 1, -static_cast<double>(r.y), 0, 0, 1};
  shift.out_width = r.w;
  shift.out_height = r.h;
  return labels::move_labels(l, {shift}, rules);
}

}  // namespace

TileSummary tile(const TileOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (o.width < 1 || o.height < 1) throw UsageError("--size: a tile is at least 1x1 pixels");
  if (!(o.overlap >= 0 && o.overlap < 1)) throw UsageError("--overlap must be in [0, 1), a fraction of the tile");
  if (!(o.min_visibility >= 0 && o.min_visibility <= 1)) throw UsageError("--min-visibility must be in [0, 1]");
  std::optional<Format> format;
  if (o.format != "keep") {
    format = format_for_extension("." + o.format);
    if (!format) throw UsageError("--format " + o.format + ": expected keep, jpg, png, webp, tiff or bmp");
  }
  std::error_code ec;
  if (fs::is_directory(o.input, ec) && path_within(o.output, o.input))
    throw UsageError("the output folder " + o.output.string() + " is inside the input folder " + o.input.string() +
                     "; pick an output folder elsewhere");
  if (fs::exists(o.output, ec) && fs::is_directory(o.output, ec) && !o.overwrite && !fs::is_empty(o.output, ec))
    throw UsageError("the output folder " + o.output.string() + " is not empty; pass --overwrite to replace its files");
  check_output_folder(o.output, "-o", o.input);
  const fs::path manifest_path = o.manifest ? *o.manifest : o.output / "tiles.jsonl";
  check_output_file(manifest_path, "--manifest", o.input);

  const std::vector<InputFile> inputs = list_inputs(o.input);
  std::unique_ptr<labels::Format> labels_format;
  if (!o.labels.empty()) labels_format = labels::make_format(o.labels, {1, 0, 3, o.input});
  std::optional<labels::MaskFolder> masks;
  if (o.masks) masks.emplace(*o.masks, o.mask_suffix);
  const fs::path masks_out = labels::masks_output_folder(o.output, o.masks_output);
  if (masks && (path_within(masks_out, *o.masks) || path_within(*o.masks, masks_out)))
    throw UsageError("the masks' output folder " + masks_out.string() + " and the input masks " + o.masks->string() +
                     " overlap; pass --masks-output");
  labels::LabelRules rules;
  rules.min_visibility = o.min_visibility;
  rules.min_area = o.min_area;

  fs::create_directories(o.output, ec);
  if (ec) throw UsageError("cannot create the output folder " + o.output.string() + ": " + ec.message());
  if (labels_format) fs::remove_all(o.output / ".augment-labels", ec);
  const int workers = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  TileSummary summary;
  summary.inputs = inputs.size();
  std::string manifest;
  for (const InputFile& in : inputs) {
    try {
      // The image is held whole once: its file's bytes go before the tiles are cut.
      Image image;
      {
        const std::vector<std::uint8_t> bytes = read_file(in.path());
        image = decode_image(bytes.data(), bytes.size(), o.decode);
      }
      const int W = image.width(), H = image.height();
      std::optional<labels::ImageLabels> input_labels;
      if (labels_format) input_labels = labels_format->read(in.path(), in.rel, W, H);
      std::optional<labels::Mask> mask;
      if (masks) {
        const auto file = masks->find(in.rel);
        if (!file) throw InputError("its mask " + masks->path_for(in.rel).string() + " is missing");
        mask = labels::read_mask(*file);
        if (mask->image.width() != W || mask->image.height() != H)
          throw InputError("its mask " + file->string() + " is " + std::to_string(mask->image.width()) + "x" +
                           std::to_string(mask->image.height()) + ", the image " + std::to_string(W) + "x" +
                           std::to_string(H));
      }
      if (input_labels) summary.objects += input_labels->objects.size();

      const fs::path rel(in.rel);
      const std::string ext = format ? format_extension(*format) : rel.extension().string();
      const Format out_format = format ? *format : format_for_extension(ext).value_or(Format::Png);
      std::vector<Cut> cuts;
      for (int y : tile_offsets(H, o.height, o.overlap))
        for (int x : tile_offsets(W, o.width, o.overlap)) {
          Cut c{x, y, std::min(o.width, W), std::min(o.height, H), {}};
          c.out_rel = (rel.parent_path() / (rel.stem().string() + "_x" + std::to_string(x) + "_y" + std::to_string(y) + ext))
                          .generic_string();
          cuts.push_back(std::move(c));
        }

      // The tiles in parallel: each is cut, encoded and written with its labels and mask.
      std::vector<json> lines(cuts.size());
      std::vector<std::string> errors(cuts.size());
      std::atomic<std::size_t> next{0}, kept{0};
      auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < cuts.size();) {
          const Cut& c = cuts[i];
          try {
            json line{{"input", in.rel}, {"output", c.out_rel}, {"x", c.x}, {"y", c.y}, {"width", c.w}, {"height", c.h}};
            if (input_labels) {
              labels::ImageLabels l = *input_labels;
              const labels::LabelCounts counts = tile_labels(l, c, rules);
              l.width = c.w;
              l.height = c.h;
              l.moved = true;
              labels_format->write(o.output, c.out_rel, l);
              line["labels"] = counts.to_json();
              kept += counts.kept;
            }
            if (mask) {
              const std::vector<std::uint8_t> png = labels::encode_mask_png({crop_image(mask->image, c), mask->palette});
              write_file_atomic(labels::mask_output_file(masks_out, c.out_rel, o.mask_suffix), png.data(), png.size());
            }
            const Encoded e = encode_image(crop_image(image, c), out_format, {o.quality});
            write_file_atomic(o.output / c.out_rel, e.bytes.data(), e.bytes.size());
            lines[i] = std::move(line);
          } catch (const std::exception& e) {
            errors[i] = e.what();
          }
        }
      };
      std::vector<std::thread> threads;
      for (int w = 1; w < std::min<int>(workers, static_cast<int>(cuts.size())); ++w) threads.emplace_back(work);
      work();
      for (std::thread& t : threads) t.join();
      for (std::size_t i = 0; i < cuts.size(); ++i)
        if (!errors[i].empty()) throw InputError(cuts[i].out_rel + ": " + errors[i]);
      for (const json& line : lines) manifest += line.dump() + "\n";
      summary.tiles += cuts.size();
      summary.object_tiles += kept;
    } catch (const std::exception& e) {
      ++summary.failed_inputs;
      spdlog::error("{}: {}", in.path(), e.what());
    }
  }
  if (labels_format) {
    labels_format->finish(o.output);
    fs::remove_all(o.output / ".augment-labels", ec);
  }
  write_file_atomic(manifest_path, manifest.data(), manifest.size());
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace aug
