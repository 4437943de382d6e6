#include "lib/stages/partners.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "lib/core/error.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace partners_impl {
namespace {

// One sample as a fraction of its type's range (float as is), and back.
double unit_value(const Image& im, int x, int y, int c) {
  const std::size_t at = static_cast<std::size_t>(x) * im.channels() + c;
  switch (im.dtype()) {
    case DType::U8: return im.row(y)[at] / 255.0;
    case DType::U16: return reinterpret_cast<const std::uint16_t*>(im.row(y))[at] / 65535.0;
    default: return reinterpret_cast<const float*>(im.row(y))[at];
  }
}

// Integer samples converted between 8 and 16 bits exactly as the docs say (x257, rne(v / 257)).
double in_range(double unit, DType from_integer_type, double raw, DType to) {
  if (to == DType::F32) return unit;
  const double max = to == DType::U8 ? 255.0 : 65535.0;
  if (from_integer_type == DType::U8 && to == DType::U16) return raw * 257.0;
  if (from_integer_type == DType::U16 && to == DType::U8) return std::nearbyint(raw / 257.0);
  if (from_integer_type == to) return raw;
  return std::clamp(std::nearbyint(unit * max), 0.0, max);
}

void store(Image& im, int x, int y, int c, double v) {
  const std::size_t at = static_cast<std::size_t>(x) * im.channels() + c;
  switch (im.dtype()) {
    case DType::U8: im.row(y)[at] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0)); break;
    case DType::U16:
      reinterpret_cast<std::uint16_t*>(im.row(y))[at] = static_cast<std::uint16_t>(std::clamp(v, 0.0, 65535.0));
      break;
    default: reinterpret_cast<float*>(im.row(y))[at] = static_cast<float>(v); break;
  }
}

double raw_value(const Image& im, int x, int y, int c) {
  const std::size_t at = static_cast<std::size_t>(x) * im.channels() + c;
  switch (im.dtype()) {
    case DType::U8: return im.row(y)[at];
    case DType::U16: return reinterpret_cast<const std::uint16_t*>(im.row(y))[at];
    default: return reinterpret_cast<const float*>(im.row(y))[at];
  }
}

}  // namespace
}  // namespace partners_impl

Image conform_pixels(const Image& in, const Shape& like) {
  Image out(Shape{in.width(), in.height(), like.channels, like.dtype});
  const int from = in.channels(), to = like.channels;
  const double max = like.dtype == DType::U8 ? 255.0 : like.dtype == DType::U16 ? 65535.0 : 1.0;
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) {
      // The colour channels (1 or 3) and alpha of the source, in the target's type.
      auto value = [&](int c) {
        return partners_impl::in_range(partners_impl::unit_value(in, x, y, c), in.dtype(),
                                       partners_impl::raw_value(in, x, y, c), like.dtype);
      };
      const int colours_in = from >= 3 ? 3 : 1;
      for (int c = 0; c < to; ++c) {
        double v;
        if (to >= 3 && c == 3) v = from == 4 || from == 2 ? value(from - 1) : max;  // alpha: kept or opaque
        else if (to == 2 && c == 1) v = from == 4 || from == 2 ? value(from - 1) : max;
        else if (to >= 3 && colours_in == 1) v = value(0);
        else if (to <= 2 && colours_in == 3) {
          const double g = 0.299 * value(0) + 0.587 * value(1) + 0.114 * value(2);
          v = like.dtype == DType::F32 ? g : std::nearbyint(g);
        } else {
          v = value(c);
        }
        partners_impl::store(out, x, y, c, v);
      }
    }
  return out;
}

Image conform_mask(const Image& in, const Shape& like) {
  Image out(Shape{in.width(), in.height(), 1, like.dtype});
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) partners_impl::store(out, x, y, 0, partners_impl::raw_value(in, x, y, 0));
  return out;
}

std::vector<Taken> draw_partners(Draws& d, const DrawInputs& seen, int count, const Shape& like) {
  std::vector<Taken> out(static_cast<std::size_t>(std::max(count, 0)));
  for (Taken& t : out) t.width = like.width, t.height = like.height;
  const PartnerSource* source = seen.partners;
  if (!source || source->size() < 2) return out;  // the image is its own partner
  const std::optional<std::size_t> self = source->index_of(seen.self);
  const std::size_t others = source->size() - (self ? 1 : 0);
  std::set<std::size_t> taken;
  for (Taken& t : out) {
    std::size_t index = 0;
    // Distinct partners while there are enough; a few redraws at most when the list is short.
    for (int attempt = 0;; ++attempt) {
      index = static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(others) - 1));
      if (self && index >= *self) ++index;
      if (taken.size() >= others || !taken.count(index) || attempt >= 64) break;
    }
    taken.insert(index);
    t.from = source->get(index);
    t.width = t.from->width;
    t.height = t.from->height;
    t.load = [source, index, like]() -> std::shared_ptr<const Image> {
      std::shared_ptr<const Image> im = source->pixels(index);
      if (im->channels() == like.channels && im->dtype() == like.dtype) return im;
      return std::make_shared<const Image>(conform_pixels(*im, like));
    };
  }
  return out;
}

}  // namespace aug
