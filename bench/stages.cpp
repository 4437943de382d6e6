// Per-stage cost on one image (default: the first 1080p photograph of the corpus), for the bench
// configurations every registered stage declares (StageSpec::bench), each on the input image:
//   - decoding the image file, the reference the CPU path of every stage should stay under;
//   - each stage's CPU cost (median of the repeats): its plan for the image (the draws, and whatever a
//     stage builds per image when it draws, such as a weather stage's layer) and its CPU path;
//   - the OpenCV call that does the same job with the same resolved parameters (StageSpec::counterpart),
//     on one thread, timed in turn with the stage, and the ratio of the two ("—" where OpenCV has none);
//   - with --device, its kernels on that device (CUDA events, input resident, no transfers),
//     the effective bandwidth (bytes read + written once), its share of the device's copy bandwidth
//     (a 256 MiB device-to-device copy) and its share of the bandwidth of a device-to-device copy of
//     the same bytes timed the same way (one copy between two events, then a sync: what a stage
//     that reads and writes each value once would take at best, launch cost included).
// usage: augment_bench_stages [--image FILE] [--stage NAME[,NAME...]] [--device cuda:0|cuda-emulated] [--repeats N]
//                             [--objects N] [--tile N] [--no-cpu 1]
//   --stage NAMES: only those stages' configurations
//   --tile N: the image repeated N x N times (a larger input made of the same photograph)
//   --no-cpu 1: the device columns only (the CPU and OpenCV columns say "—")
//   --objects N: the stages whose draw reads labels see N boxes on a grid and their label map (values
//     1..N), as a run with --labels and --masks passes them; without it they see none
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <opencv2/core.hpp>

#include "bench/counterparts.hpp"
#include "bench/timing.hpp"
#include "lib/core/process.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/run/devices.hpp"
#include "lib/exec/backend.hpp"
#include "lib/io/files.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/io/codec.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/stages/stage.hpp"

using namespace aug;

// The stage objects to time: {"stage": NAME, ...entry, "p": 1} for every declared bench entry.
std::vector<nlohmann::ordered_json> bench_stages(const std::string& only) {
  std::vector<nlohmann::ordered_json> out;
  const std::string list = "," + only + ",";
  for (const auto& t : stage_types()) {
    const StageSpec& spec = t.spec();
    if (!only.empty() && list.find("," + spec.name + ",") == std::string::npos) continue;
    for (const std::string& entry : spec.bench) {
      nlohmann::ordered_json stage{{"stage", spec.name}};
      stage.update(nlohmann::ordered_json::parse(entry));
      stage["p"] = 1;
      out.push_back(stage);
    }
  }
  if (out.empty()) throw std::runtime_error("no registered stage \"" + only + "\" (`augment stages` lists them)");
  return out;
}

using bench::median_ms;

int main(int argc, char** argv) {
  std::string image = "bench/corpus/hd1080/class00/img00000.jpg", only, device;
  int repeats = 20, objects = 0, tile = 1;
  bool cpu = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--image") image = v;
    else if (k == "--stage") only = v;
    else if (k == "--device") device = v;
    else if (k == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    else if (k == "--objects") objects = std::max(0, std::atoi(v.c_str()));
    else if (k == "--tile") tile = std::max(1, std::atoi(v.c_str()));
    else if (k == "--no-cpu") cpu = v == "0";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 1;
    }
  }
  try {
    keep_large_buffers_in_heap();  // the allocator as augment sets it: per-image planes reuse the heap's pages
    cv::setNumThreads(1);  // OpenCV's own functions on one thread, as the stages here
    const auto bytes = read_file(image);
    const Image decoded = decode_image(bytes.data(), bytes.size(), {});
    Image in = decoded;
    if (tile > 1) {
      Image big({decoded.width() * tile, decoded.height() * tile, decoded.channels(), decoded.dtype()});
      cv::repeat(as_mat(decoded.ref()), tile, tile, as_mat(big.ref()));
      in = std::move(big);
    }
    const std::vector<nlohmann::ordered_json> stages = bench_stages(only);
    labels::ImageLabels boxes{in.width(), in.height(), {}, false, nlohmann::json::object()};
    Image label_map({in.width(), in.height(), 1, DType::U8});
    as_mat(label_map.ref()).setTo(0);
    const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(objects))));
    for (int i = 0; i < objects; ++i) {  // one box in the middle half of each grid cell
      const int cw = in.width() / side, ch = in.height() / side;
      const cv::Rect r((i % side) * cw + cw / 4, (i / side) * ch + ch / 4, std::max(1, cw / 2), std::max(1, ch / 2));
      as_mat(label_map.ref())(r).setTo(std::min(i + 1, 255));
      labels::Object o;
      o.category = i;
      o.box = labels::Box{double(r.x), double(r.y), double(r.x + r.width), double(r.y + r.height)};
      boxes.objects.push_back(o);
    }
    const DrawInputs seen = objects > 0 ? DrawInputs{&boxes, &label_map} : DrawInputs{};
    if (objects > 0) std::printf("stages that read labels see %d boxes and their label map\n", objects);
    const double decode = median_ms(repeats, [&] { decode_image(bytes.data(), bytes.size(), {}); });
    std::printf("image %s%s: %s, decode %.2f ms (CPU, one thread)\n", image.c_str(),
                tile > 1 ? (" repeated " + std::to_string(tile) + "x" + std::to_string(tile)).c_str() : "",
                to_string(in.shape()).c_str(), decode);

    std::unique_ptr<gpu::DeviceApi> emulated;
    gpu::DeviceApi* api = nullptr;
    int index = 0;
    if (device == "cuda-emulated") {
      emulated = gpu::make_emulated_api();
      api = emulated.get();
    } else if (!device.empty()) {
      const DeviceSpec d = parse_device(device);
      const gpu::Inventory inv = gpu::inventory();
      // The device with that CUDA index: the inventory leaves out GPUs too old for this build, so
      // an index is not a position in the list.
      const auto found = std::find_if(inv.devices.begin(), inv.devices.end(),
                                      [&](const gpu::DeviceInfo& g) { return g.index == d.index; });
      if (d.kind != DeviceSpec::Kind::Cuda || found == inv.devices.end()) {
        std::string have = inv.devices.empty() ? inv.why_none : "this machine has";
        for (const auto& g : inv.devices) have += " cuda:" + std::to_string(g.index) + " (" + g.name + ")";
        std::fprintf(stderr, "%s: no such device (%s)\n", device.c_str(), have.c_str());
        return 1;
      }
      api = gpu::cuda_runtime_api();
      index = found->index;
      std::printf("device cuda:%d: %s\n", index, found->name.c_str());
    }
    double copy_gbs = 0;
    if (api) {
      copy_gbs = gpu::copy_bandwidth_gbs(*api, index, std::size_t{1} << 28);
      std::printf("device copy bandwidth (read + write): %.0f GB/s\n", copy_gbs);
    }

    std::printf("\n| stage | output | CPU ms | CPU / decode | OpenCV ms | augment / OpenCV |%s\n|---|---|---|---|---|---|%s\n",
                api ? " kernel ms | GB/s | % of copy | same-size copy ms | % of same-size copy |" : "",
                api ? "---|---|---|---|---|" : "");
    HostKernelContext host;
    for (const auto& stage : stages) {
      const Pipeline one = Pipeline::parse(
          nlohmann::ordered_json{{"version", 1}, {"stages", nlohmann::ordered_json::array({stage})}}.dump(), "bench");
      const Plan plan = one.plan(0, "bench", 0, in.shape(), seen);
      const Op& op = *plan.steps.at(0).op;
      Image out(op.out_shape());
      auto ours = [&] {
        // The same plan every time (seed 0, the same key): the work of one image, draws included.
        const Plan again = one.plan(0, "bench", 0, in.shape(), seen);
        again.steps.at(0).op->run(host, in.ref(), out.ref());
        host.reset();  // scratch is reused image after image, as in a run
      };
      // The OpenCV counterpart, with the parameters the stage resolved (8-bit images), timed in
      // turn with the stage.
      const cv::Mat src = as_mat(in.ref());
      cv::Mat dst;
      const bench::Counterpart cv_call =
          in.shape().dtype == DType::U8 ? bench::opencv_counterpart(*plan.steps.at(0).node->spec, op, src, dst)
                                        : bench::Counterpart{};
      double cpu_ms = 0, cv_ms = 0;
      if (!cpu) {}
      else if (cv_call.call) std::tie(cpu_ms, cv_ms) = bench::median_pair_ms(repeats, ours, cv_call.call);
      else cpu_ms = median_ms(repeats, ours);
      nlohmann::ordered_json label = stage;
      label.erase("p");  // every configuration runs with p = 1
      std::printf("| %s | %dx%d |", label.dump().c_str(), op.out_shape().width, op.out_shape().height);
      if (cpu) std::printf(" %.3f | %.2f |", cpu_ms, cpu_ms / decode);
      else std::printf(" — | — |");
      if (cpu && cv_call.call) {
        std::printf(" %.3f | %.2fx |", cv_ms, cpu_ms / cv_ms);
        // A table read off 256 values stands for the stage only if the stage is per-value.
        if (cv_call.lut && cv::norm(dst, as_mat(out.ref()), cv::NORM_INF) != 0)
          std::fprintf(stderr, "%s: cv::LUT differs from the stage's output\n", label.dump().c_str());
      } else {
        std::printf(" — | — |");
      }
      if (api) {
        const double ms = gpu::time_kernels(*api, index, op, in, repeats);
        const double gbs = static_cast<double>(in.shape().bytes() + op.out_shape().bytes()) / (ms * 1e6);
        // The same bytes moved by one device-to-device copy: half of them read, half written.
        const std::size_t moved = in.shape().bytes() + op.out_shape().bytes();
        const double copy_ms = gpu::copy_time_ms(*api, index, moved / 2, repeats);
        std::printf(" %.4f | %.0f | %.0f%% | %.4f | %.0f%% |", ms, gbs, 100 * gbs / copy_gbs, copy_ms, 100 * copy_ms / ms);
      }
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "augment_bench_stages: %s\n", e.what());
    return 1;
  }
}
