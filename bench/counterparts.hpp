// The OpenCV call that does a stage's job, for the benchmark programs: each stage declares it
// (StageSpec::counterpart), built from the Op's resolved parameters (what the manifest records), so
// that it runs with the values the stage used.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "lib/stages/stage.hpp"

namespace aug::bench {

// The table of a per-value Op (out depends only on the value and its channel), read off by running
// it on the 256 values of an 8-bit image: a 1 x 256 cv::Mat with the source's channels.
inline cv::Mat per_value_table(const Op& op, int channels) {
  const Shape s{256, 1, channels, DType::U8};
  std::vector<std::uint8_t> in(256 * static_cast<std::size_t>(channels)), out(in.size());
  for (int v = 0; v < 256; ++v)
    for (int c = 0; c < channels; ++c) in[v * channels + c] = static_cast<std::uint8_t>(v);
  HostKernelContext host;
  const ImageRef a{in.data(), s, s.row_bytes()}, b{out.data(), s, s.row_bytes()};
  // The Op was planned for the benchmark image; a per-value Op reads nothing of its shape.
  op.run(host, a, b);
  return cv::Mat(1, 256, CV_8UC(channels), out.data()).clone();
}

struct Counterpart {
  std::string what;            // the OpenCV call, for the table
  std::function<void()> call;  // empty: no counterpart
  bool lut = false;            // cv::LUT over a table read off the Op: checked against the stage's output
};

// The OpenCV call doing the stage's job with `op`'s parameters on `src` into `dst`; {} where the
// stage declares none, or none for these parameters. 8-bit images.
inline Counterpart opencv_counterpart(const StageSpec& spec, const Op& op, const cv::Mat& src, cv::Mat& dst) {
  const aug::Counterpart& c = spec.counterpart;
  if (c.lut) {
    const cv::Mat table = per_value_table(op, src.channels());
    return {c.call, [&dst, src, table] { cv::LUT(src, table, dst); }, true};
  }
  if (!c.make) return {};
  std::function<void()> call = c.make(op.params(), src, dst);
  if (!call) return {};
  return {c.call, std::move(call)};
}

}  // namespace aug::bench
