// The OpenCV call that does a stage's job, for the benchmark programs: built from the Op's
// resolved parameters (what the manifest records), so that it runs with the values the stage used.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/exec/kernel_context.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug::bench {

inline int cv_border(const std::string& b) {
  if (b == "replicate") return cv::BORDER_REPLICATE;
  if (b == "reflect") return cv::BORDER_REFLECT;
  if (b == "reflect101") return cv::BORDER_REFLECT_101;
  if (b == "wrap") return cv::BORDER_WRAP;
  return cv::BORDER_CONSTANT;
}

// The warps' interpolation words.
inline int cv_warp_interp(const std::string& i) {
  return i == "nearest" ? cv::INTER_NEAREST : (i == "bilinear" ? cv::INTER_LINEAR : cv::INTER_CUBIC);
}

// resize's: 8-bit bilinear is INTER_LINEAR_EXACT (the same arithmetic), the others by name.
inline int cv_resize_interp(const std::string& i) {
  if (i == "nearest") return cv::INTER_NEAREST;
  if (i == "bilinear") return cv::INTER_LINEAR_EXACT;
  if (i == "area") return cv::INTER_AREA;
  return cv::INTER_CUBIC;
}

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

// What the counterpart needs besides the parameters: the source (as the stage gets it) and the
// destination the call writes, sized by the call itself.
struct Counterpart {
  std::string what;            // the OpenCV call, for the table
  std::function<void()> call;  // empty: no counterpart
};

// The OpenCV call doing `stage`'s job with `op`'s parameters on `src` into `dst`; {} where OpenCV
// has no counterpart. 8-bit images.
inline Counterpart opencv_counterpart(const std::string& stage, const Op& op, const cv::Mat& src, cv::Mat& dst) {
  const nlohmann::json m = op.params();
  const int cn = src.channels();
  if (stage == "resize" || stage == "random_resized_crop") {
    if (!m.contains("interpolation")) return {};
    const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
    const int interp = cv_resize_interp(m.at("interpolation").get<std::string>());
    cv::Rect roi(0, 0, src.cols, src.rows);
    if (m.contains("crop")) {
      const auto c = m.at("crop").get<std::array<int, 4>>();
      roi = cv::Rect(c[0], c[1], c[2], c[3]);
    }
    return {"resize", [&dst, src, roi, size, interp] { cv::resize(src(roi), dst, size, 0, 0, interp); }};
  }
  if (stage == "flip") {
    const int code = m.at("direction").get<std::string>() == "horizontal" ? 1 : 0;
    return {"flip", [&dst, src, code] { cv::flip(src, dst, code); }};
  }
  if (stage == "crop") {
    const cv::Rect roi(m.at("x").get<int>(), m.at("y").get<int>(), m.at("width").get<int>(), m.at("height").get<int>());
    const auto pad = m.at("padding").get<std::array<int, 4>>();
    const auto extra = m.at("pad_if_needed").get<std::array<int, 2>>();
    if (pad == std::array<int, 4>{0, 0, 0, 0} && extra == std::array<int, 2>{0, 0})
      return {"ROI copyTo", [&dst, src, roi] { src(roi).copyTo(dst); }};
    const int border = cv_border(m.value("border", std::string("constant")));
    return {"copyMakeBorder + ROI copyTo", [&dst, src, roi, pad, extra, border] {
              cv::Mat padded;
              cv::copyMakeBorder(src, padded, pad[1] + extra[1], pad[3] + extra[1], pad[0] + extra[0],
                                 pad[2] + extra[0], border, cv::Scalar());
              padded(roi).copyTo(dst);
            }};
  }
  if (stage == "pad") {
    const auto s = m.at("padding").get<std::array<int, 4>>();
    const int border = cv_border(m.at("border").get<std::string>());
    return {"copyMakeBorder",
            [&dst, src, s, border] { cv::copyMakeBorder(src, dst, s[1], s[3], s[0], s[2], border, cv::Scalar()); }};
  }
  if (stage == "rotate90") {
    const int k = ((m.at("k").get<int>() % 4) + 4) % 4;
    const bool transpose = m.at("transpose").get<bool>();
    // k quarter turns counter-clockwise, after the transpose when there is one.
    static constexpr int kCode[] = {-1, cv::ROTATE_90_COUNTERCLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_CLOCKWISE};
    const int code = kCode[k];
    return {transpose ? (k ? "transpose + rotate" : "transpose") : "rotate", [&dst, src, code, transpose] {
              if (!transpose) return cv::rotate(src, dst, code);
              if (code < 0) return cv::transpose(src, dst);
              cv::Mat t;
              cv::transpose(src, t);
              cv::rotate(t, dst, code);
            }};
  }
  if (stage == "rotate" || stage == "affine" || stage == "perspective") {
    const auto a = m.at("matrix").get<std::array<double, 9>>();
    const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
    const std::vector<double> f = m.at("fill").get<std::vector<double>>();
    cv::Scalar fill;
    for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
    const int interp = cv_warp_interp(m.at("interpolation").get<std::string>());
    const int border = cv_border(m.at("border").get<std::string>());
    if (a[6] == 0 && a[7] == 0 && a[8] == 1)
      return {"warpAffine", [&dst, src, a, size, interp, border, fill] {
                cv::warpAffine(src, dst, cv::Mat(2, 3, CV_64F, const_cast<double*>(a.data())), size, interp, border, fill);
              }};
    return {"warpPerspective", [&dst, src, a, size, interp, border, fill] {
              cv::warpPerspective(src, dst, cv::Mat(3, 3, CV_64F, const_cast<double*>(a.data())), size, interp, border,
                                  fill);
            }};
  }
  if (stage == "gaussian_blur") {
    const int k = m.at("kernel_size").get<int>();
    const double sigma = m.at("sigma").get<double>();
    const int border = cv_border(m.at("border").get<std::string>());
    return {"GaussianBlur", [&dst, src, k, sigma, border] { cv::GaussianBlur(src, dst, cv::Size(k, k), sigma, sigma, border); }};
  }
  if (stage == "median_blur") {
    const int k = m.at("kernel_size").get<int>();
    return {"medianBlur", [&dst, src, k] { cv::medianBlur(src, dst, k); }};
  }
  if (stage == "motion_blur") {
    const int k = m.at("kernel_size").get<int>();
    const auto points = m.at("points").get<std::vector<std::array<int, 2>>>();
    cv::Mat kernel = cv::Mat::zeros(k, k, CV_32F);
    for (const auto& p : points) kernel.at<float>(p[1], p[0]) = static_cast<float>(1.0 / static_cast<double>(points.size()));
    return {"filter2D", [&dst, src, kernel] { cv::filter2D(src, dst, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101); }};
  }
  if (stage == "invert") return {"bitwise_not", [&dst, src] { cv::bitwise_not(src, dst); }};
  if (stage == "grayscale" && cn >= 3) {
    return {"cvtColor RGB2GRAY + GRAY2RGB", [&dst, src, cn] {
              cv::Mat gray;
              cv::cvtColor(src, gray, cn == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
              cv::cvtColor(gray, dst, cv::COLOR_GRAY2RGB);
            }};
  }
  if (stage == "equalize") {
    return {"equalizeHist per channel", [&dst, src] {
              std::vector<cv::Mat> planes;
              cv::split(src, planes);
              for (cv::Mat& p : planes) cv::equalizeHist(p, p);
              cv::merge(planes, dst);
            }};
  }
  if (stage == "posterize" || stage == "solarize" || stage == "gamma" || stage == "channel_gain" ||
      stage == "rgb_shift") {
    const cv::Mat table = per_value_table(op, cn);
    return {"LUT", [&dst, src, table] { cv::LUT(src, table, dst); }};
  }
  if (stage == "channel_shuffle" && m.contains("order")) {
    const auto order = m.at("order").get<std::vector<int>>();
    std::vector<int> pairs;
    for (int c = 0; c < cn; ++c) pairs.insert(pairs.end(), {c < static_cast<int>(order.size()) ? order[c] : c, c});
    return {"mixChannels", [&dst, src, pairs] {
              dst.create(src.size(), src.type());
              cv::mixChannels(&src, 1, &dst, 1, pairs.data(), pairs.size() / 2);
            }};
  }
  if ((stage == "random_erasing" || stage == "coarse_dropout") && m.at("value").is_array()) {
    std::vector<cv::Rect> rects;
    for (const auto& r : m.at("rects")) rects.emplace_back(r[0].get<int>(), r[1].get<int>(), r[2].get<int>(), r[3].get<int>());
    const auto v = m.at("value").get<std::vector<double>>();
    cv::Scalar fill;
    for (int c = 0; c < 4; ++c) fill[c] = std::nearbyint(v[std::min<std::size_t>(v.size() - 1, c)] * 255.0);
    return {"copyTo + setTo", [&dst, src, rects, fill] {
              src.copyTo(dst);
              for (const cv::Rect& r : rects) dst(r).setTo(fill);
            }};
  }
  if (stage == "jpeg" && m.at("mode").get<std::string>() == "libjpeg") {
    const int q = m.at("quality").get<int>();
    return {"imencode + imdecode", [&dst, src, q] {
              std::vector<std::uint8_t> buf;
              cv::imencode(".jpg", src, buf, {cv::IMWRITE_JPEG_QUALITY, q});
              dst = cv::imdecode(buf, cv::IMREAD_UNCHANGED);
            }};
  }
  return {};
}

}  // namespace aug::bench
