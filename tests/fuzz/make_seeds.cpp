// Writes the small images of corpus/fuzz_decode (run by hand: `make_seeds <dir>`): one or more
// tiny files per accepted format and sample type, so that the fuzzer starts inside every decoder.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

namespace {

cv::Mat gradient(int w, int h, int type) {
  cv::Mat m(h, w, type);
  const int channels = m.channels();
  const double top = CV_MAT_DEPTH(type) == CV_8U ? 255 : (CV_MAT_DEPTH(type) == CV_16U ? 65535 : 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        const double v = 0.5 + 0.5 * std::sin(0.7 * x + 1.3 * y + 2.0 * c);
        const double s = v * top;
        switch (CV_MAT_DEPTH(type)) {
          case CV_8U: m.ptr<std::uint8_t>(y)[x * channels + c] = static_cast<std::uint8_t>(std::lround(s)); break;
          case CV_16U: m.ptr<std::uint16_t>(y)[x * channels + c] = static_cast<std::uint16_t>(std::lround(s)); break;
          default: m.ptr<float>(y)[x * channels + c] = static_cast<float>(s); break;
        }
      }
  return m;
}

void write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::uint8_t> encode(const std::string& ext, const cv::Mat& m, const std::vector<int>& params = {}) {
  std::vector<std::uint8_t> out;
  cv::imencode(ext, m, out, params);
  return out;
}

// An APP1 EXIF segment (little-endian TIFF, one IFD entry: orientation) after the JPEG's SOI.
std::vector<std::uint8_t> with_exif_orientation(std::vector<std::uint8_t> jpeg, int orientation) {
  const std::uint8_t tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0,  // header, IFD0 at 8
                               1, 0,                          // one entry
                               0x12, 0x01, 3, 0, 1, 0, 0, 0, static_cast<std::uint8_t>(orientation), 0, 0, 0,
                               0, 0, 0, 0};                   // no next IFD
  std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
  app1.insert(app1.end(), std::begin(tiff), std::end(tiff));
  const std::size_t len = app1.size() - 2;
  app1[2] = static_cast<std::uint8_t>(len >> 8);
  app1[3] = static_cast<std::uint8_t>(len & 0xFF);
  jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());
  return jpeg;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 1;
  const std::string dir = std::string(argv[1]) + "/";
  write(dir + "rgb.jpg", encode(".jpg", gradient(16, 12, CV_8UC3), {cv::IMWRITE_JPEG_QUALITY, 75}));
  write(dir + "gray.jpg", encode(".jpg", gradient(9, 7, CV_8UC1)));
  write(dir + "progressive.jpg", encode(".jpg", gradient(12, 10, CV_8UC3), {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
  write(dir + "exif6.jpg", with_exif_orientation(encode(".jpg", gradient(8, 5, CV_8UC3)), 6));
  write(dir + "rgb.png", encode(".png", gradient(11, 7, CV_8UC3)));
  write(dir + "rgba.png", encode(".png", gradient(6, 9, CV_8UC4)));
  write(dir + "gray16.png", encode(".png", gradient(7, 5, CV_16UC1)));
  write(dir + "rgb16.png", encode(".png", gradient(5, 4, CV_16UC3)));
  write(dir + "bilevel.png", encode(".png", gradient(10, 6, CV_8UC1), {cv::IMWRITE_PNG_BILEVEL, 1}));
  write(dir + "rgb.bmp", encode(".bmp", gradient(7, 5, CV_8UC3)));
  write(dir + "gray.bmp", encode(".bmp", gradient(6, 4, CV_8UC1)));
  write(dir + "rgb.tif", encode(".tif", gradient(8, 6, CV_8UC3)));
  write(dir + "rgb16.tif", encode(".tif", gradient(5, 4, CV_16UC3)));
  write(dir + "float.tif", encode(".tif", gradient(4, 3, CV_32FC1), {cv::IMWRITE_TIFF_COMPRESSION, 1}));
  write(dir + "rgba_lzw.tif", encode(".tif", gradient(6, 5, CV_8UC4), {cv::IMWRITE_TIFF_COMPRESSION, 5}));
  write(dir + "lossy.webp", encode(".webp", gradient(12, 8, CV_8UC3), {cv::IMWRITE_WEBP_QUALITY, 60}));
  write(dir + "lossless.webp", encode(".webp", gradient(7, 6, CV_8UC4), {cv::IMWRITE_WEBP_QUALITY, 101}));
  return 0;
}
