#include "lib/verify/verify.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

#include <opencv2/imgproc.hpp>

#include "lib/io/files.hpp"
#include "lib/run/jobs.hpp"
#include "lib/run/partners.hpp"
#include "lib/run/runner.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/io/jpeg_coefficients.hpp"

namespace aug {

namespace {

// 8-bit RGB for showing: gray to RGB, alpha dropped, deeper types scaled.
Image displayable(const Image& im) {
  Image eight = to_u8(im);
  if (eight.channels() == 3) return eight;
  Image rgb(Shape{eight.width(), eight.height(), 3, DType::U8});
  cv::Mat dst = as_mat(rgb.ref());
  cv::cvtColor(as_mat(eight.ref()), dst, eight.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_RGBA2RGB);
  return rgb;
}

Image crop(const Image& im, const cv::Rect& r) {
  Image out(Shape{r.width, r.height, im.channels(), im.dtype()});
  cv::Mat dst = as_mat(out.ref());
  as_mat(im.ref())(r).copyTo(dst);
  return out;
}

// |a - b| per pixel (largest over the channels), scaled so that the largest difference is the
// top of the colour map: single-level differences become visible.
Image heat_map(const Image& a, const Image& b) {
  cv::Mat da, db, diff;
  as_mat(a.ref()).convertTo(da, CV_64F);
  as_mat(b.ref()).convertTo(db, CV_64F);
  cv::absdiff(da, db, diff);
  std::vector<cv::Mat> planes;
  cv::split(diff, planes);
  cv::Mat m = planes[0];
  for (std::size_t i = 1; i < planes.size() && i < 3; ++i) m = cv::max(m, planes[i]);
  double mx = 0;
  cv::minMaxLoc(m, nullptr, &mx);
  cv::Mat scaled, colour, rgb;
  m.convertTo(scaled, CV_8U, mx > 0 ? 255.0 / mx : 0);
  cv::applyColorMap(scaled, colour, cv::COLORMAP_INFERNO);
  cv::cvtColor(colour, rgb, cv::COLOR_BGR2RGB);
  Image out(Shape{rgb.cols, rgb.rows, 3, DType::U8});
  cv::Mat dst = as_mat(out.ref());
  rgb.copyTo(dst);
  return out;
}

Evidence make_evidence(const std::string& title, const PairResult& pair, const Image& a, const Image& b) {
  const Difference& d = pair.diff;
  constexpr int kSide = 384;
  cv::Rect r(0, 0, a.width(), a.height());
  if (a.width() > kSide || a.height() > kSide) {
    const int w = std::min(kSide, a.width()), h = std::min(kSide, a.height());
    const int x = std::clamp(d.worst.x - w / 2, 0, a.width() - w), y = std::clamp(d.worst.y - h / 2, 0, a.height() - h);
    r = cv::Rect(x, y, w, h);
  }
  const Image ca = crop(a, r), cb = crop(b, r);
  Evidence e{title, pair.a, pair.b, pair.gating, displayable(ca), displayable(cb), heat_map(ca, cb), d.max_abs};
  if (r.width != a.width() || r.height != a.height())
    e.title += " (crop " + std::to_string(r.width) + "x" + std::to_string(r.height) + " at " + std::to_string(r.x) + "," +
               std::to_string(r.y) + ")";
  return e;
}

double tolerance_for(const Node& node, DType t, const VerifyOptions& o) {
  const auto it = o.tolerance.find(node.name);
  return it != o.tolerance.end() ? it->second : node.spec->tolerance.for_dtype(t);
}

struct Context {
  const Pipeline& pipeline;
  std::vector<VerifyDevice>& devices;
  const VerifyOptions& o;
  std::uint64_t seed;
  const PartnerSource* partners;  // stages that read other images draw them from the inputs compared
  std::mutex evidence_mutex;
  std::vector<std::pair<std::size_t, Evidence>> evidence;  // (image order, picture)

  // Keeps the pictures of the first max_evidence comparisons by priority (over-tolerance ones
  // first, then input order), whatever order the workers finish in.
  void keep(std::size_t order, const std::string& title, const PairResult& pair, const Image& a, const Image& b) {
    const bool gating = pair.gating;
    const auto before = [](bool g1, std::size_t o1, bool g2, std::size_t o2) { return g1 != g2 ? g1 : o1 < o2; };
    {
      std::lock_guard lock(evidence_mutex);
      if (o.max_evidence == 0 || (evidence.size() >= o.max_evidence &&
                                  !before(gating, order, evidence.back().second.gating, evidence.back().first)))
        return;
    }
    Evidence e = make_evidence(title, pair, a, b);
    std::lock_guard lock(evidence_mutex);
    const auto at = std::find_if(evidence.begin(), evidence.end(), [&](const auto& x) {
      return before(gating, order, x.second.gating, x.first);
    });
    evidence.emplace(at, order, std::move(e));
    if (evidence.size() > o.max_evidence) evidence.pop_back();
  }
};

// Every pair of devices' results, as records of one comparison each (tolerance 0, gating).
std::vector<PairResult> codec_pairs(Context& ctx, std::size_t order, const std::string& title, const std::vector<Image>& out) {
  std::vector<PairResult> pairs;
  auto& devs = ctx.devices;
  for (std::size_t i = 0; i < devs.size(); ++i)
    for (std::size_t j = i + 1; j < devs.size(); ++j) {
      if (out[i].shape() != out[j].shape())
        throw std::runtime_error(title + ": " + devs[i].name + " gives " + to_string(out[i].shape()) + ", " +
                                 devs[j].name + " " + to_string(out[j].shape()));
      PairResult pr{devs[i].name, devs[j].name, true, 0, compare_images(out[i], out[j], 0)};
      if (!pr.ok()) ctx.keep(order, title + ", " + pr.a + " vs " + pr.b, pr, out[i], out[j]);
      pairs.push_back(std::move(pr));
    }
  return pairs;
}

// --device-jpeg, decoding: the pixels each device starts from, as a run with --device-jpeg has
// them (the CPU decoder's for the CPU; each GPU's reconstruction from the file's coefficients), or
// none when a run decodes this file on the CPU (the reason in rec.jpeg_on_cpu).
std::vector<Image> device_decodes(Context& ctx, const InputFile& file, const std::vector<std::uint8_t>& bytes,
                                  const DecodeOptions& options, const Image& native, ImageRecord& rec,
                                  std::size_t order, int worker) {
  std::string why;
  auto coefficients = read_jpeg_for_device(bytes.data(), bytes.size(), options, &why);
  if (!coefficients) {
    if (!why.empty()) rec.jpeg_on_cpu.push_back("decoded on the CPU (" + why + ")");
    return {};
  }
  CodedImage coded{Image(), std::make_shared<const JpegCoefficients>(std::move(*coefficients))};
  if (options.shrink && options.shrink(coded.shape()) > 1) {
    rec.jpeg_on_cpu.push_back("decoded on the CPU (shrink-on-load)");
    return {};
  }
  std::vector<Image> out{native};
  for (std::size_t d = 1; d < ctx.devices.size(); ++d)
    out.push_back(ctx.devices[d].backend->run_coded(Plan{}, coded, 0, worker).pixels);
  rec.jpeg_decode = codec_pairs(ctx, order, file.rel + ": JPEG decoding", out);
  return out;
}

// --device-jpeg, encoding: the CPU's final image encoded by every device (the CPU encoder's file
// for the CPU; each GPU's coefficients entropy-coded on the host), compared byte for byte.
void device_encodes(Context& ctx, const Image& final_image, ImageRecord& rec, int worker) {
  const Shape& s = final_image.shape();
  if (s.dtype != DType::U8 || (s.channels != 1 && s.channels != 3)) {
    rec.jpeg_on_cpu.push_back("encoded on the CPU (" + to_string(s) + " is not 8-bit gray or RGB)");
    return;
  }
  const int q = ctx.o.jpeg_quality;
  std::vector<std::vector<std::uint8_t>> files{jpeg_encode(final_image.ref(), q)};
  for (std::size_t d = 1; d < ctx.devices.size(); ++d) {
    const CodedImage coded = ctx.devices[d].backend->run_coded(Plan{}, CodedImage{final_image, nullptr}, q, worker);
    if (!coded.jpeg) throw std::runtime_error(ctx.devices[d].name + " did not encode an 8-bit " + to_string(s) + " image");
    files.push_back(write_jpeg_coefficients(*coded.jpeg, q));
  }
  auto& devs = ctx.devices;
  for (std::size_t i = 0; i < devs.size(); ++i)
    for (std::size_t j = i + 1; j < devs.size(); ++j)
      rec.jpeg_encode.push_back({devs[i].name, devs[j].name, true, 0, compare_bytes(files[i], files[j])});
}

// One image as one sample type on every device. Fills `rec`; returns the CPU chain's outputs
// (input first) and the plan, for the comparisons between sample types. `starts`: the image each
// device starts from (--device-jpeg), when not `input` for all.
std::vector<Image> verify_devices(Context& ctx, const InputFile& file, const Image& input,
                                  const std::vector<Image>& starts, ImageRecord& rec, Plan& plan, std::size_t order,
                                  int worker) {
  auto& devs = ctx.devices;
  plan = ctx.pipeline.plan(ctx.seed, file.rel, 0, input.shape(), DrawInputs{nullptr, nullptr, ctx.partners, file.rel});
  std::vector<Image> cpu_chain{input};
  std::vector<bool> diverged(devs.size(), false);
  std::vector<Image> chain(devs.size(), input);  // stages that `p` skips leave the image as it is
  if (!starts.empty()) {
    chain = starts;
    for (std::size_t d = 1; d < devs.size(); ++d)
      if (rec.jpeg_decode[d - 1].diff.differing) {
        diverged[d] = true;
        rec.first_divergence[devs[d].name] = "JPEG decoding";
      }
  }
  double e2e_tolerance = 0;
  std::uint32_t index = 0;
  for (const Step& step : plan.steps) {
    if (!step.op) continue;
    const double tol = tolerance_for(*step.node, input.dtype(), ctx.o);
    e2e_tolerance = std::max(e2e_tolerance, tol);
    std::vector<Image> out(devs.size());
    for (std::size_t d = 0; d < devs.size(); ++d) out[d] = devs[d].backend->run_op(*step.op, cpu_chain.back(), worker);
    StageRecord sr{index++, step.node->position, step.node->name, step.node->pointer, step.op->params(), {}};
    for (std::size_t i = 0; i < devs.size(); ++i)
      for (std::size_t j = i + 1; j < devs.size(); ++j) {
        PairResult pr{devs[i].name, devs[j].name, true, tol, compare_images(out[i], out[j], tol)};
        if (!pr.ok())
          ctx.keep(order, file.rel + " " + dtype_name(input.dtype()) + ": " + sr.stage + " (" + sr.at + "), " + pr.a +
                              " vs " + pr.b,
                   pr, out[i], out[j]);
        sr.pairs.push_back(std::move(pr));
      }
    rec.stages.push_back(std::move(sr));
    // Each device's own chain: the same as the stage-by-stage output until it has diverged.
    for (std::size_t d = 1; d < devs.size(); ++d) {
      if (diverged[d]) {
        chain[d] = devs[d].backend->run_op(*step.op, chain[d], worker);
        continue;
      }
      chain[d] = out[d];  // the pair (cpu, d) above compared exactly these two
      if (rec.stages.back().pairs[d - 1].diff.differing) {
        diverged[d] = true;
        rec.first_divergence[devs[d].name] = step.node->pointer + " (" + step.node->name + ")";
      }
    }
    cpu_chain.push_back(std::move(out[0]));
  }
  chain[0] = cpu_chain.back();
  for (std::size_t i = 0; i < devs.size(); ++i)
    for (std::size_t j = i + 1; j < devs.size(); ++j)
      rec.end_to_end.push_back({devs[i].name, devs[j].name, true, e2e_tolerance,
                                compare_images(chain[i], chain[j], e2e_tolerance)});
  return cpu_chain;
}

void verify_image(Context& ctx, const InputFile& file, std::size_t order, int worker, std::vector<ImageRecord>& out) {
  Image native;
  std::vector<std::uint8_t> bytes;
  // As run decodes copy 0: smaller with the pipeline's shrink-on-load.
  const DecodeOptions options = ctx.pipeline.decode_options({}, ctx.seed, file.rel, {0}, true, false);
  try {
    bytes = read_file(file.path());
    native = decode_image(bytes.data(), bytes.size(), options);
  } catch (const std::exception& e) {
    ImageRecord rec;
    rec.input = file.rel;
    rec.error = e.what();
    out.push_back(std::move(rec));
    return;
  }
  const std::vector<DType> types = ctx.o.dtypes.empty() ? std::vector<DType>{native.dtype()} : ctx.o.dtypes;
  std::vector<std::vector<Image>> chains(types.size());
  std::vector<Plan> plans(types.size());
  std::vector<std::size_t> records(types.size(), SIZE_MAX);
  const auto as_decoded = static_cast<std::size_t>(std::find(types.begin(), types.end(), native.dtype()) - types.begin());
  for (std::size_t t = 0; t < types.size(); ++t) {
    ImageRecord rec;
    rec.input = file.rel;
    rec.dtype = types[t];
    const Image input = convert_dtype(native, types[t]);
    rec.shape = input.shape();
    // --device-jpeg: the codec on each device, once, for the image as decoded (what a run gives the GPU).
    const bool codec = ctx.o.device_jpeg && t == as_decoded;
    try {
      const std::vector<Image> starts =
          codec ? device_decodes(ctx, file, bytes, options, native, rec, order, worker) : std::vector<Image>{};
      chains[t] = verify_devices(ctx, file, input, starts, rec, plans[t], order, worker);
      if (codec) device_encodes(ctx, chains[t].back(), rec, worker);
    } catch (const DeviceError&) {
      throw;
    } catch (const std::exception& e) {
      rec.error = e.what();
      rec.stages.clear();
      rec.end_to_end.clear();
      rec.jpeg_decode.clear();
      rec.jpeg_encode.clear();
    }
    records[t] = out.size();
    out.push_back(std::move(rec));
  }
  // The same image processed as other sample types, against the first one, on the CPU.
  if (types.size() < 2 || !out[records[0]].error.empty()) return;
  Backend& cpu = *ctx.devices[0].backend;
  const DType ref = types[0];
  for (std::size_t t = 1; t < types.size(); ++t) {
    ImageRecord& rec = out[records[t]];
    if (!rec.error.empty()) continue;
    const std::string a = dtype_name(ref), b = dtype_name(types[t]);
    std::size_t stage = 0;
    for (const Step& step : plans[t].steps) {
      if (!step.op) continue;
      const Image result = convert_dtype(cpu.run_op(*step.op, convert_dtype(chains[0][stage], types[t]), worker), ref);
      PairResult pr{a, b, false, 0, compare_images(chains[0][stage + 1], result, 0)};
      if (pr.diff.differing)
        ctx.keep(order, file.rel + ": " + step.node->name + " (" + step.node->pointer + "), " + a + " vs " + b, pr,
                 chains[0][stage + 1], result);
      rec.stages.at(stage).pairs.push_back(std::move(pr));
      ++stage;
    }
    rec.end_to_end.push_back({a, b, false, 0, compare_images(chains[0].back(), convert_dtype(chains[t].back(), ref), 0)});
  }
}

}  // namespace

bool VerifyReport::all_within() const {
  for (const auto& im : images) {
    for (const auto* codec : {&im.jpeg_decode, &im.jpeg_encode})
      for (const auto& p : *codec)
        if (!p.ok()) return false;
    for (const auto& s : im.stages)
      for (const auto& p : s.pairs)
        if (!p.ok()) return false;
    for (const auto& p : im.end_to_end)
      if (!p.ok()) return false;
  }
  return true;
}

Exit VerifyReport::exit_code() const {
  if (!all_within()) return Exit::mismatch;
  for (const auto& im : images)
    if (!im.error.empty()) return Exit::file_errors;
  return Exit::ok;
}

VerifyReport verify(const Pipeline& pipeline, std::vector<VerifyDevice>& devices, const VerifyOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (devices.size() < 2) throw UsageError("verify-devices needs at least two devices to compare");
  std::vector<InputFile> inputs = list_inputs(o.input);
  if (o.max_images && inputs.size() > o.max_images) inputs.resize(o.max_images);
  if (inputs.empty()) throw UsageError("no images under " + o.input.string());

  VerifyReport report;
  report.pipeline_file = pipeline.source();
  report.seed = effective_seed(pipeline, o.seed);
  report.dtypes = o.dtypes;
  report.jpeg_quality = o.device_jpeg ? o.jpeg_quality : 0;
  for (const auto& d : devices) {
    report.devices.push_back({d.name, d.description, d.gpu});
    report.gpu_involved = report.gpu_involved || d.gpu;
  }
  // Partners (mosaic, mixup, cutmix, copy_paste) are the compared inputs, converted to each sample type compared.
  std::unique_ptr<PartnerCache> partners;
  if (pipeline.reads_partners())
    partners = std::make_unique<PartnerCache>(inputs, DecodeOptions{}, nullptr, nullptr,
                                              static_cast<std::size_t>(std::max(1, o.threads)));
  Context ctx{pipeline, devices, o, report.seed, partners.get(), {}, {}};
  std::vector<std::vector<ImageRecord>> per_input(inputs.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<std::thread> workers;
  for (int w = 0; w < std::max(1, o.threads); ++w)
    workers.emplace_back([&, w] {
      for (std::size_t i; (i = next++) < inputs.size();) {
        try {
          verify_image(ctx, inputs[i], i, w, per_input[i]);
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          next = inputs.size();
        }
      }
    });
  for (auto& t : workers) t.join();
  if (failure) std::rethrow_exception(failure);
  for (auto& v : per_input)
    for (auto& r : v) report.images.push_back(std::move(r));
  for (auto& e : ctx.evidence) report.evidence.push_back(std::move(e.second));
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

nlohmann::json VerifyReport::to_json(const nlohmann::json& pipeline) const {
  using nlohmann::json;
  auto pair_json = [](const PairResult& p) {
    json j = p.diff.to_json();
    j["a"] = p.a;
    j["b"] = p.b;
    j["kind"] = p.gating ? "devices" : "dtypes";
    j["tolerance"] = p.tolerance;
    j["verdict"] = p.gating ? (p.ok() ? "ok" : "over tolerance") : (p.diff.differing ? "differs" : "equal");
    return j;
  };
  json devs = json::array();
  for (const auto& d : devices) devs.push_back({{"name", d.name}, {"description", d.description}, {"gpu", d.gpu}});
  json imgs = json::array();
  for (const auto& im : images) {
    json j{{"input", im.input}};
    if (!im.error.empty()) {
      j["error"] = im.error;
      imgs.push_back(j);
      continue;
    }
    j["dtype"] = dtype_name(im.dtype);
    j["shape"] = {im.shape.width, im.shape.height, im.shape.channels};
    json stages = json::array();
    for (const auto& s : im.stages) {
      json pairs = json::array();
      for (const auto& p : s.pairs) pairs.push_back(pair_json(p));
      stages.push_back({{"index", s.index}, {"stage", s.stage}, {"at", s.at}, {"params", s.params}, {"comparisons", pairs}});
    }
    json e2e = json::array();
    for (const auto& p : im.end_to_end) e2e.push_back(pair_json(p));
    if (jpeg_quality) {
      json decode = json::array(), encode = json::array();
      for (const auto& p : im.jpeg_decode) decode.push_back(pair_json(p));
      for (const auto& p : im.jpeg_encode) encode.push_back(pair_json(p));
      j["jpeg_decode"] = decode;
      j["jpeg_encode"] = encode;
      j["jpeg_on_cpu"] = im.jpeg_on_cpu;
    }
    j["stages"] = stages;
    j["end_to_end"] = e2e;
    j["first_divergence"] = im.first_divergence;
    imgs.push_back(j);
  }
  json dts = json::array();
  for (DType t : dtypes) dts.push_back(dtype_name(t));
  std::size_t errors = 0;
  for (const auto& im : images) errors += !im.error.empty();
  return {{"schema", kVerifySchema},
          {"tool", {{"name", "augment"}, {"version", AUGMENT_VERSION}, {"cuda", static_cast<bool>(AUGMENT_WITH_CUDA)}}},
          {"devices", devs},
          {"gpu_involved", gpu_involved},
          {"note", gpu_involved ? "" : "no GPU was involved: cuda-emulated runs the CUDA kernels on the host"},
          {"pipeline", {{"file", pipeline_file}, {"document", pipeline}}},
          {"seed", seed},
          {"dtypes", dts},
          {"device_jpeg", jpeg_quality ? json{{"quality", jpeg_quality}} : json(false)},
          {"images", imgs},
          {"summary",
           {{"images", images.size()},
            {"errors", errors},
            {"all_within_tolerance", all_within()},
            {"seconds", seconds},
            {"exit_code", static_cast<int>(exit_code())}}}};
}

}  // namespace aug
