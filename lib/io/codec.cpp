#include "lib/io/codec.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/io/cv_codecs.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/io/png.hpp"

namespace aug {

namespace {

std::string megapixels(std::uint64_t pixels) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", pixels / 1e6);
  return buf;
}

Image from_mat(const cv::Mat& m) {
  Image out(Shape{m.cols, m.rows, m.channels(),
                  m.depth() == CV_8U ? DType::U8 : (m.depth() == CV_16U ? DType::U16 : DType::F32)});
  cv::Mat dst = as_mat(out.ref());
  m.copyTo(dst);
  return out;
}

// OpenCV decodes BGR(A); inside the tool images are RGB(A).
Image decode_with_opencv(const std::uint8_t* data, std::size_t size, Format format) {
  // cv::imdecode picks its decoder by content among all of OpenCV's codecs: when the probed
  // format's own decoder rejects the header, bytes with "DICM" at offset 128 reach OpenCV's DICOM
  // reader, which can allocate gigabytes for a few hundred bytes (found by fuzzing). augment does
  // not read DICOM; such input is refused before OpenCV sees it.
  if (size >= 132 && std::equal(data + 128, data + 132, "DICM"))
    throw InputError(std::string("corrupt ") + format_name(format) +
                     ": it also carries a DICOM signature (DICM at byte 128), which augment does not read");
  cv::Mat m = cvcodecs::decode(data, size);
  if (m.empty()) throw InputError(std::string("corrupt or truncated ") + format_name(format));
  switch (m.depth()) {
    case CV_8U:
    case CV_16U:
    case CV_32F: break;
    case CV_64F: m.convertTo(m, CV_32F); break;
    default: throw InputError(std::string("unsupported ") + format_name(format) + " sample type (signed integer)");
  }
  cv::Mat rgb;
  switch (m.channels()) {
    case 1: rgb = m; break;
    case 2: {  // gray + alpha: RGBA
      rgb.create(m.rows, m.cols, CV_MAKETYPE(m.depth(), 4));
      const int from_to[] = {0, 0, 0, 1, 0, 2, 1, 3};
      cv::mixChannels(&m, 1, &rgb, 1, from_to, 4);
      break;
    }
    case 3: cv::cvtColor(m, rgb, cv::COLOR_BGR2RGB); break;
    case 4: cv::cvtColor(m, rgb, cv::COLOR_BGRA2RGBA); break;
    default: throw InputError(std::string("unsupported ") + format_name(format) + " with " +
                              std::to_string(m.channels()) + " channels");
  }
  return from_mat(rgb);
}

template <class F>
Image convert(const Image& in, DType to, F f) {
  Image out(Shape{in.width(), in.height(), in.channels(), to});
  with_sample_type(in.dtype(), [&](auto src_tag) {
    using S = decltype(src_tag);
    with_sample_type(to, [&](auto dst_tag) {
      using D = decltype(dst_tag);
      const auto* s = reinterpret_cast<const S*>(in.data());
      auto* d = reinterpret_cast<D*>(out.data());
      const std::size_t n = in.shape().values();
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<D>(f(static_cast<double>(s[i])));
    });
  });
  return out;
}

double clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace

Image to_u8(const Image& in) {
  if (in.dtype() == DType::U8) return in;
  if (in.dtype() == DType::U16) return convert(in, DType::U8, [](double v) { return std::nearbyint(v / 257.0); });
  return convert(in, DType::U8, [](double v) { return std::nearbyint(clamp01(v) * 255.0); });
}

Image to_u16(const Image& in) {
  if (in.dtype() == DType::U16) return in;
  if (in.dtype() == DType::U8) return convert(in, DType::U16, [](double v) { return v * 257.0; });
  return convert(in, DType::U16, [](double v) { return std::nearbyint(clamp01(v) * 65535.0); });
}

Image to_f32(const Image& in) {
  if (in.dtype() == DType::F32) return in;
  const double scale = in.dtype() == DType::U8 ? 255.0 : 65535.0;
  return convert(in, DType::F32, [scale](double v) { return v / scale; });
}

Image drop_alpha(const Image& in) {
  if (in.channels() != 4) return in;
  Image out(Shape{in.width(), in.height(), 3, in.dtype()});
  cv::Mat dst = as_mat(out.ref());
  cv::cvtColor(as_mat(in.ref()), dst, cv::COLOR_RGBA2RGB);
  return out;
}

Image apply_orientation(const Image& in, int orientation) {
  if (orientation <= 1 || orientation > 8) return in;
  const cv::Mat src = as_mat(in.ref());
  cv::Mat dst;
  switch (orientation) {
    case 2: cv::flip(src, dst, 1); break;
    case 3: cv::flip(src, dst, -1); break;
    case 4: cv::flip(src, dst, 0); break;
    case 5: cv::transpose(src, dst); break;
    case 6: cv::rotate(src, dst, cv::ROTATE_90_CLOCKWISE); break;
    case 7:
      cv::transpose(src, dst);
      cv::flip(dst, dst, -1);
      break;
    case 8: cv::rotate(src, dst, cv::ROTATE_90_COUNTERCLOCKWISE); break;
  }
  return from_mat(dst);
}

Image decode_image(const std::uint8_t* data, std::size_t size, const DecodeOptions& options, ImageInfo* info_out) {
  const ImageInfo info = probe(data, size);
  const std::uint64_t pixels = static_cast<std::uint64_t>(info.width) * static_cast<std::uint64_t>(info.height);
  if (pixels > options.max_pixels)
    throw InputError(std::to_string(info.width) + "x" + std::to_string(info.height) + " is " + megapixels(pixels) +
                     " megapixels, over --max-pixels (" + megapixels(options.max_pixels) + ")");
  ImageInfo decoded = info;
  if (options.shrink && info.format == Format::Jpeg && (info.components == 1 || info.components == 3)) {
    const bool turned = info.orientation >= 5;  // 5..8 swap width and height
    decoded.shrink = options.shrink(Shape{turned ? info.height : info.width, turned ? info.width : info.height,
                                          info.components, DType::U8});
    decoded.width = shrunk_size(info.width, decoded.shrink);
    decoded.height = shrunk_size(info.height, decoded.shrink);
  }
  // The decoder's buffer is the result unless an EXIF rotation makes a new one.
  const ImageAllocator allocate = info.orientation <= 1 || info.orientation > 8 ? options.allocate : ImageAllocator();
  Image image;
  switch (info.format) {
    case Format::Jpeg: {
      JpegDecodeOptions jpeg{options.allow_truncated, decoded.shrink};
      jpeg.allocate = allocate;
      if (options.region && info.orientation <= 1 && (info.components == 1 || info.components == 3)) {
        const Shape shape{decoded.width, decoded.height, info.components, DType::U8};
        if (const std::optional<PixelRect> r = options.region(shape)) {
          jpeg.x0 = r->x0;
          jpeg.y0 = r->y0;
          jpeg.x1 = r->x1;
          jpeg.y1 = r->y1;
        }
      }
      image = jpeg_decode(data, size, jpeg);
      break;
    }
    case Format::Png: image = png_decode(data, size, allocate); break;
    default: image = decode_with_opencv(data, size, info.format); break;
  }
  // --max-pixels was checked against the header: the decoder must agree with it.
  if (image.width() != decoded.width || image.height() != decoded.height)
    throw InputError(std::string("corrupt ") + format_name(info.format) + " (the header says " +
                     std::to_string(info.width) + "x" + std::to_string(info.height) + ", the image data " +
                     std::to_string(image.width()) + "x" + std::to_string(image.height()) +
                     (decoded.shrink > 1 ? " at 1/" + std::to_string(decoded.shrink) : std::string()) + ")");
  if (info_out) *info_out = decoded;
  return apply_orientation(image, info.orientation);
}

std::optional<Format> format_for_extension(const std::string& ext) {
  std::string e = ext;
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (e == ".jpg" || e == ".jpeg") return Format::Jpeg;
  if (e == ".png") return Format::Png;
  if (e == ".bmp") return Format::Bmp;
  if (e == ".tif" || e == ".tiff") return Format::Tiff;
  if (e == ".webp") return Format::Webp;
  return std::nullopt;
}

Encoded encode_image(const Image& input, Format format, const EncodeOptions& options) {
  Encoded out;
  Image img = input;
  std::vector<std::string> changes;
  const auto need_u8 = [&] {
    if (img.dtype() != DType::U8) {
      changes.push_back(std::string(img.dtype() == DType::U16 ? "16-bit" : "float") + " to 8-bit");
      img = to_u8(img);
    }
  };
  switch (format) {
    case Format::Jpeg:
      need_u8();
      if (img.channels() == 4) {
        changes.push_back("alpha dropped");
        img = drop_alpha(img);
      }
      out.bytes = jpeg_encode(img.ref(), options.quality);
      break;
    case Format::Png:
    case Format::Tiff:
    case Format::Webp:
    case Format::Bmp: {
      if (format == Format::Png && img.dtype() == DType::F32) {
        changes.push_back("float to 16-bit");
        img = to_u16(img);
      }
      if (format == Format::Webp || format == Format::Bmp) need_u8();
      cv::Mat bgr;
      const cv::Mat src = as_mat(img.ref());
      if (img.channels() == 3) cv::cvtColor(src, bgr, cv::COLOR_RGB2BGR);
      else if (img.channels() == 4) cv::cvtColor(src, bgr, cv::COLOR_RGBA2BGRA);
      else bgr = src;
      std::vector<int> params;
      if (format == Format::Webp) params = {cv::IMWRITE_WEBP_QUALITY, options.quality};
      if (format == Format::Png) params = {cv::IMWRITE_PNG_COMPRESSION, 3};
      if (format == Format::Tiff) params = {cv::IMWRITE_TIFF_COMPRESSION, 5};  // LZW: OpenCV's default for float is lossy LogLuv
      if (!cvcodecs::encode(format_extension(format), bgr, params, out.bytes))
        throw InputError(std::string("the ") + format_name(format) + " encoder refused a " + to_string(img.shape()) +
                         " image");
      break;
    }
  }
  for (std::size_t i = 0; i < changes.size(); ++i) out.conversion += (i ? ", " : "") + changes[i];
  return out;
}

std::vector<std::string> codec_library_versions() {
  return {"OpenCV " + cv::getVersionString(), jpeg_library_version(), "libpng " + png_library_version()};
}

}  // namespace aug
