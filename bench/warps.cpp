// rotate, affine and perspective: each declared bench configuration's CPU path (one thread) on a
// 1080p photograph against cv::warpAffine / cv::warpPerspective (cv::setNumThreads(1)) with the
// matrix, size, interpolation, border and fill the stage's manifest records; prints the ratio.
// usage: augment_bench_warps [--image FILE] [--repeats N]
//   default image: bench/corpus/hd1080/class00/img00000.jpg, else samples/astronaut.jpg resized to 1920x1080
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "bench/counterparts.hpp"
#include "bench/timing.hpp"
#include "lib/io/codec.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/io/files.hpp"
#include "lib/stages/stage.hpp"

using namespace aug;

int main(int argc, char** argv) {
  std::string image = "bench/corpus/hd1080/class00/img00000.jpg";
  int repeats = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--image") image = v;
    else if (k == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 1;
    }
  }
  try {
    cv::setNumThreads(1);
    Image in;
    if (std::filesystem::exists(image)) {
      const auto bytes = read_file(image);
      in = decode_image(bytes.data(), bytes.size(), {});
    } else {
      const auto bytes = read_file("samples/astronaut.jpg");
      const Image a = decode_image(bytes.data(), bytes.size(), {});
      const cv::Mat src(a.height(), a.width(), CV_8UC(a.channels()), const_cast<void*>(static_cast<const void*>(a.row(0))),
                        a.pitch());
      cv::Mat big;
      cv::resize(src, big, cv::Size(1920, 1080), 0, 0, cv::INTER_LINEAR);
      in = Image(Shape{1920, 1080, big.channels(), DType::U8});
      for (int y = 0; y < 1080; ++y) std::copy_n(big.ptr<std::uint8_t>(y), in.shape().row_bytes(), in.row(y));
      image = "samples/astronaut.jpg resized to 1920x1080";
    }
    std::printf("image %s: %s; CPU path and OpenCV on one thread, median of %d\n\n", image.c_str(),
                to_string(in.shape()).c_str(), repeats);
    std::printf("| stage | augment ms | OpenCV ms | ratio |\n|---|---|---|---|\n");
    const cv::Mat src(in.height(), in.width(), CV_8UC(in.channels()), const_cast<void*>(static_cast<const void*>(in.row(0))),
                      in.pitch());
    HostKernelContext host;
    for (const char* name : {"rotate", "affine", "perspective"}) {
      const StageType* t = find_stage_type(name);
      for (const std::string& entry : t->spec().bench) {
        nlohmann::ordered_json stage{{"stage", name}};
        stage.update(nlohmann::ordered_json::parse(entry));
        stage["p"] = 1;
        const Pipeline one = Pipeline::parse(
            nlohmann::ordered_json{{"version", 1}, {"stages", nlohmann::ordered_json::array({stage})}}.dump(), "bench");
        const Plan plan = one.plan(0, "bench", 0, in.shape());
        const Op& op = *plan.steps.at(0).op;
        Image out(op.out_shape());
        cv::Mat dst;
        const bench::Counterpart theirs_call = bench::opencv_counterpart(t->spec(), op, src, dst);
        // In turn, so that a change in the machine's load reaches both alike.
        const auto [ours, theirs] = bench::median_pair_ms(
            repeats,
            [&] {
              op.run(host, in.ref(), out.ref());
              host.reset();
            },
            theirs_call.call);
        std::printf("| %s %s | %.2f | %.2f | %.2fx |\n", name, entry.c_str(), ours, theirs, ours / theirs);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "augment_bench_warps: %s\n", e.what());
    return 1;
  }
}
