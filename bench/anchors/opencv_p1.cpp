// The anchors that bench/p1.py measures augment against, written directly on OpenCV with a pool of
// std::threads that take the next input from a shared counter.
//
// usage: opencv_p1 MODE IN_DIR OUT_DIR THREADS
//   io     the I/O floor of P1: decode each input, encode the top-left region of it that has the size
//          of P1's output (short side 256; the whole image when it is smaller), no other work
//   full   P1 written by hand: decode, resize to short side 256 (bilinear), Gaussian blur 7x7
//          sigma 1.0, gains R 1.10 G 1.00 B 0.85 (saturating), encode
//   floor  decode and re-encode every input at full size
// Every output is a JPEG, quality 90, at the input's path relative to IN_DIR under OUT_DIR.
// OpenCV's own threading is off, so THREADS is the only parallelism.
//
// build (bench/p1.py does this itself):
//   g++ -O2 -std=c++17 -pthread bench/anchors/opencv_p1.cpp -I/usr/include/opencv4
//       -lopencv_imgcodecs -lopencv_imgproc -lopencv_core -o opencv_p1
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

enum class Mode { io, full, floor };

// The size of P1's output for an image of `size`: short side 256, aspect kept.
cv::Size p1_size(cv::Size size) {
  const double scale = 256.0 / std::min(size.width, size.height);
  return {cvRound(size.width * scale), cvRound(size.height * scale)};
}

cv::Mat p1(const cv::Mat& bgr) {
  cv::Mat resized, blurred, gained;
  cv::resize(bgr, resized, p1_size(bgr.size()), 0, 0, cv::INTER_LINEAR);
  cv::GaussianBlur(resized, blurred, cv::Size(7, 7), 1.0);
  blurred.convertTo(gained, CV_32F);
  cv::multiply(gained, cv::Scalar(0.85, 1.00, 1.10), gained);  // OpenCV holds pixels as B, G, R
  gained.convertTo(blurred, CV_8U);                           // rounds and saturates
  return blurred;
}

cv::Mat io_region(const cv::Mat& bgr) {
  if (std::min(bgr.rows, bgr.cols) <= 256) return bgr;  // P1 would not shrink it: all of it
  return bgr(cv::Rect(cv::Point(0, 0), p1_size(bgr.size()))).clone();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: opencv_p1 io|full|floor IN_DIR OUT_DIR THREADS\n";
  if (argc != 5) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const std::string mode_name = argv[1];
  Mode mode;
  if (mode_name == "io") mode = Mode::io;
  else if (mode_name == "full") mode = Mode::full;
  else if (mode_name == "floor") mode = Mode::floor;
  else {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const fs::path in = argv[2], out = argv[3];
  const int threads = std::max(1, std::atoi(argv[4]));
  cv::setNumThreads(0);

  std::vector<fs::path> inputs;
  for (const auto& entry : fs::recursive_directory_iterator(in))
    if (entry.is_regular_file()) inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());

  const std::vector<int> jpeg_params = {cv::IMWRITE_JPEG_QUALITY, 90};
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  auto worker = [&] {
    for (size_t i = next++; i < inputs.size(); i = next++) {
      const cv::Mat bgr = cv::imread(inputs[i].string(), cv::IMREAD_COLOR);
      if (bgr.empty()) {
        std::fprintf(stderr, "opencv_p1: cannot decode %s\n", inputs[i].c_str());
        ++failures;
        continue;
      }
      const cv::Mat result = mode == Mode::full ? p1(bgr) : mode == Mode::io ? io_region(bgr) : bgr;
      const fs::path target = out / fs::relative(inputs[i], in).replace_extension(".jpg");
      fs::create_directories(target.parent_path());
      if (!cv::imwrite(target.string(), result, jpeg_params)) {
        std::fprintf(stderr, "opencv_p1: cannot write %s\n", target.c_str());
        ++failures;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return failures == 0 ? 0 : 1;
}
