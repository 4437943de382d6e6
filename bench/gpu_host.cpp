// The CPU time a GPU backend spends per image outside the device's work: what `augment run` pays
// on the host for each image it sends to a GPU, apart from decoding and encoding.
//
// For each repeat, alternating the two ways an input can reach the backend:
//   - staged: decoded into plain memory, so the backend copies it into its pinned staging;
//   - in place: decoded into the backend's pinned buffers (Backend::input_allocator, as
//     `augment run` does with one device), so it is uploaded from where it was decoded.
// Each: the decode, then Backend::run and dropping its result (as the encoder does once it is
// written), timed by the wall clock; the device's own time (Backend::busy_seconds: from before the
// upload to after the download, CUDA events on a GPU, the queued work as it runs on an emulated
// device) is subtracted. What is left is the host's part: staging copies, allocations, planning
// the launches, waiting for nothing else. Medians are printed.
//
// usage: augment_bench_gpu_host [--image FILE] [--device cuda-emulated|cuda:N] [--config PIPELINE.json]
//                               [--repeats N]
//   defaults: the first 1080p photograph of the corpus, cuda-emulated, a horizontal flip, 30
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/timing.hpp"
#include "lib/exec/backend.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/files.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/run/devices.hpp"

using namespace aug;

namespace {

struct Sample {
  double decode_ms, run_ms, device_ms;
  double host_ms() const { return run_ms - device_ms; }
};

double ms_since(bench::Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(bench::Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string image = "bench/corpus/hd1080/class00/img00000.jpg", device = "cuda-emulated", config;
  int repeats = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--image") image = v;
    else if (k == "--device") device = v;
    else if (k == "--config") config = v;
    else if (k == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 1;
    }
  }
  try {
    const Pipeline pipeline =
        config.empty()
            ? Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"}]})", "flip.json")
            : Pipeline::load_file(config);
    const std::unique_ptr<Backend> backend = open_backend(parse_device(device), 1);
    const ImageAllocator pinned = backend->input_allocator();
    const std::vector<std::uint8_t> bytes = read_file(image);
    const Shape shape = decode_image(bytes.data(), bytes.size(), {}).shape();
    const Plan plan = pipeline.plan(0, "bench", 0, shape);

    auto once = [&](bool in_place) {
      DecodeOptions options;
      if (in_place) options.allocate = pinned;
      Sample s{};
      auto t = bench::Clock::now();
      const Image in = decode_image(bytes.data(), bytes.size(), options);
      s.decode_ms = ms_since(t);
      const double busy = backend->busy_seconds();
      t = bench::Clock::now();
      { const Image out = backend->run(plan, in, 0); }
      s.run_ms = ms_since(t);
      s.device_ms = (backend->busy_seconds() - busy) * 1000;
      return s;
    };
    for (int w = 0; w < 3; ++w) once(w % 2);  // warm: buffers grown, pages touched
    std::vector<Sample> staged, in_place;
    for (int r = 0; r < repeats; ++r) {
      staged.push_back(once(false));
      in_place.push_back(once(true));
    }
    std::printf("%s on %s, %s, %d alternating repeats (medians, ms)\n", image.c_str(), backend->name().c_str(),
                to_string(shape).c_str(), repeats);
    std::printf("%-10s %8s %8s %8s %14s\n", "input", "decode", "run", "device", "host outside");
    for (const auto& [name, v] : {std::pair{"staged", &staged}, std::pair{"in place", &in_place}}) {
      auto col = [&](auto f) {
        std::vector<double> x;
        for (const Sample& s : *v) x.push_back(f(s));
        return median(x);
      };
      std::printf("%-10s %8.3f %8.3f %8.3f %14.3f\n", name, col([](const Sample& s) { return s.decode_ms; }),
                  col([](const Sample& s) { return s.run_ms; }), col([](const Sample& s) { return s.device_ms; }),
                  col([](const Sample& s) { return s.host_ms(); }));
    }
    if (!pinned) std::printf("(%s has no pinned buffers: both rows take the same path)\n", backend->name().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "augment_bench_gpu_host: %s\n", e.what());
    return 1;
  }
  return 0;
}
