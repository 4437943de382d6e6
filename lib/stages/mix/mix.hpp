// What the stages that read other images share (mosaic, mixup, cutmix, copy_paste): a partner's pixels on the
// executing device, resampled there, placed into a rectangle of the output; and the maps that
// move its labels the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/stages/engines/resample.hpp"
#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/stage.hpp"

namespace aug::mix {

// The pixels of `im` readable by ctx's kernels: a table, uploaded for this image (host memory on
// the CPU backend).
inline ImageRef device_pixels(KernelContext& ctx, const Image& im) {
  return ImageRef{const_cast<void*>(ctx.table(im.data(), im.shape().bytes())), im.shape(), im.pitch()};
}

// The pixels a cell, a blend or a paste reads: the image's own (`in`) or a partner's, loaded now
// and readable by ctx's kernels while `hold` lives (the caller keeps it until those kernels are
// queued: tables are copied when they are made). `has_pixels` is false for a partner with nothing
// to read (a partner without a label map, in for_mask).
inline bool has_pixels(const Taken& t) { return !t.from || t.load; }
struct Source {
  std::shared_ptr<const Image> hold;
  ImageRef ref;
};
inline Source source_pixels(KernelContext& ctx, const ImageRef& in, const Taken& t) {
  if (!t.from) return {nullptr, in};
  std::shared_ptr<const Image> im = t.load();
  const ImageRef ref = device_pixels(ctx, *im);
  return {std::move(im), ref};
}

// `src` resampled to w x h (resize's engine, as cv::resize with that size) in ctx's scratch memory;
// `src` itself when it has that size.
inline ImageRef resampled(KernelContext& ctx, const ImageRef& src, int w, int h, Interp interp, bool centred) {
  if (src.shape.width == w && src.shape.height == h) return src;
  const Shape s{w, h, src.shape.channels, src.shape.dtype};
  const ImageRef dst{ctx.scratch(s.bytes()), s, s.row_bytes()};
  make_resample_op(src.shape, Window{0, 0, src.shape.width, src.shape.height}, w, h, interp, centred)->run(ctx, src, dst);
  return dst;
}

// The w x h rectangle of `im` at (x, y), with im's pitch.
inline ImageRef sub_image(const ImageRef& im, int x, int y, int w, int h) {
  const std::size_t px = static_cast<std::size_t>(im.shape.channels) * sample_size(im.shape.dtype);
  return ImageRef{static_cast<char*>(im.data) + static_cast<std::size_t>(y) * im.pitch + x * px,
                  Shape{w, h, im.shape.channels, im.shape.dtype}, im.pitch};
}

// A rectangle of the output: x, y, width, height.
struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
  nlohmann::json json() const { return {x, y, w, h}; }
};

// out's rectangle r gets `src` (already at its size on the device) shifted by (ox, oy): r's pixel
// (i, j) is src's (i + ox, j + oy), `fill` where that is outside src.
inline void place(KernelContext& ctx, const ImageRef& src, const ImageRef& out, const Rect& r, int ox, int oy,
                  const std::vector<double>& fill) {
  if (r.w <= 0 || r.h <= 0) return;
  const k::WindowAxis ax{ox, 0, src.shape.width, 0, src.shape.width};
  const k::WindowAxis ay{oy, 0, src.shape.height, 0, src.shape.height};
  run_window(ctx, src, sub_image(out, r.x, r.y, r.w, r.h), ax, ay, Border::Constant, fill);
}

// out's rectangle r gets `fill` (the window kernel with every position outside its source).
inline void fill_rect(KernelContext& ctx, const ImageRef& out, const Rect& r, const std::vector<double>& fill) {
  place(ctx, out, out, r, -(1 << 28), -(1 << 28), fill);
}

// The maps that take an image of w x h resampled to nw x nh (pixel centres aligned, as cv::resize)
// and shifted by (ox, oy) into the rectangle r of a W x H output: into r's own frame, clipped to
// it, then to the output.
inline std::vector<Motion> placement(int w, int h, int nw, int nh, int ox, int oy, const Rect& r, int W, int H) {
  const double sx = static_cast<double>(nw) / w, sy = static_cast<double>(nh) / h;
  Motion into{.matrix = {sx, 0, 0.5 * sx - 0.5 - ox, 0, sy, 0.5 * sy - 0.5 - oy, 0, 0, 1},
              .out_width = r.w,
              .out_height = r.h};
  Motion out{.matrix = {1, 0, static_cast<double>(r.x), 0, 1, static_cast<double>(r.y), 0, 0, 1},
             .out_width = W,
             .out_height = H};
  return {std::move(into), std::move(out)};
}

// Partners' label maps for an Op's for_mask: each partner's map in the sample type of `mask`
// (the image's own cells read the image's map; a partner without a map reads nothing).
inline std::vector<Taken> partner_masks(const std::vector<Taken>& partners, const Shape& mask) {
  std::vector<Taken> out;
  for (const Taken& t : partners) {
    Taken m{t.from, t.width, t.height, nullptr};
    if (t.from && t.from->mask) {
      std::shared_ptr<const Partner> from = t.from;
      m.load = [from, mask]() -> std::shared_ptr<const Image> {
        const Image& pm = *from->mask;
        if (pm.dtype() == mask.dtype) return std::shared_ptr<const Image>(from, &pm);
        return std::make_shared<const Image>(conform_mask(pm, mask));
      };
    }
    out.push_back(std::move(m));
  }
  return out;
}

// A Beta(a, a) draw (Marsaglia and Tsang's gamma method on the keyed draws; Box-Muller normals).
double beta_draw(Draws& d, double a);

// The partners' relative paths, as the manifest records them ("" where the image is its own).
inline nlohmann::json partner_names(const std::vector<Taken>& partners) {
  nlohmann::json j = nlohmann::json::array();
  for (const Taken& t : partners) j.push_back(t.rel());
  return j;
}

}  // namespace aug::mix
