// Helpers shared by the noise stages' tests (gaussian_noise, random_erasing, coarse_dropout,
// channel_shuffle, rgb_shift): one value of an image of any sample type, the range of a type, the
// stream a stage draws from, and the rectangles random_erasing and coarse_dropout record.
#pragma once

#include <string>
#include <vector>

#include "kernels/core/philox.hpp"
#include "lib/core/image.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/pipeline.hpp"

namespace aug::testing::noise {

// Value (x, y, c) of an image of any sample type, as a double.
inline double at(const Image& im, int x, int y, int c) {
  double v = 0;
  with_sample_type(im.shape().dtype, [&](auto tag) {
    using T = decltype(tag);
    v = static_cast<double>(reinterpret_cast<const T*>(im.row(y))[x * im.shape().channels + c]);
  });
  return v;
}

inline double max_of(DType t) { return t == DType::U8 ? 255.0 : (t == DType::U16 ? 65535.0 : 1.0); }

// The stream of the first stage of a one-stage pipeline run by run_both (seed 11, copy 0).
inline k::KeyedStream stream_of(const std::string& key) { return keyed_stream(11, key, 0, 1); }

// A rectangle as random_erasing and coarse_dropout record it: [x, y, w, h].
struct Box {
  int x, y, w, h;
  bool operator==(const Box&) const = default;
};

inline std::vector<Box> recorded_rects(const Plan& plan) {
  std::vector<Box> out;
  for (const auto& r : plan.record[0]["params"]["rects"]) out.push_back({r[0], r[1], r[2], r[3]});
  return out;
}

}  // namespace aug::testing::noise
