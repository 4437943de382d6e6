#include "lib/exec/backend.hpp"

#include <cstdlib>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug {

namespace {

// The CPU: the steps run one after the other on the calling thread.
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int workers) : contexts_(static_cast<std::size_t>(workers)) {}

  std::string name() const override { return "cpu"; }

  Image run(const Plan& plan, const Image& in, int worker) override {
    Image cur = in;
    for (const Step& step : plan.steps) {
      if (!step.op) continue;
      try {
        cur = run_op(*step.op, cur, worker);
      } catch (const InputError&) {
        throw;
      } catch (const std::exception&) {
        rethrow_stage_error(step, name());
      }
    }
    return cur;
  }

  Image run_op(const Op& op, const Image& in, int worker) override {
    HostKernelContext& ctx = contexts_.at(static_cast<std::size_t>(worker));
    Image out(op.out_shape());
    ctx.reset();
    op.run_cpu(ctx, in.ref(), out.ref());
    return out;
  }

 private:
  std::vector<HostKernelContext> contexts_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int workers) {
  cv::setNumThreads(0);  // parallelism is across images; OpenCV calls stay on their thread
  return std::make_unique<CpuBackend>(workers);
}
std::unique_ptr<Backend> make_emulated_backend(int workers) { return gpu::open_emulated_backend(workers); }

DeviceSpec parse_device(const std::string& text) {
  DeviceSpec d;
  d.text = text;
  if (text == "cpu") d.kind = DeviceSpec::Kind::Cpu;
  else if (text == "auto") d.kind = DeviceSpec::Kind::Auto;
  else if (text == "cuda-emulated") d.kind = DeviceSpec::Kind::Emulated;
  else if (text == "cuda") d.kind = DeviceSpec::Kind::Cuda;
  else if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() < 9 &&
           text.find_first_not_of("0123456789", 5) == std::string::npos) {
    d.kind = DeviceSpec::Kind::Cuda;
    d.index = std::atoi(text.c_str() + 5);
  } else {
    throw UsageError("--device " + text + ": expected cpu, auto, cuda, cuda:N or cuda-emulated");
  }
  return d;
}

std::unique_ptr<Backend> open_backend(const DeviceSpec& device, int workers) {
  switch (device.kind) {
    case DeviceSpec::Kind::Cpu: return make_cpu_backend(workers);
    case DeviceSpec::Kind::Emulated: return make_emulated_backend(workers);
    case DeviceSpec::Kind::Cuda: return gpu::open_backend(device.index, workers);
    case DeviceSpec::Kind::Auto: break;
  }
  const gpu::Inventory inv = gpu::inventory();
  if (!inv.devices.empty()) {
    spdlog::info("device auto: using cuda:0 ({})", inv.devices[0].name);
    return gpu::open_backend(0, workers);
  }
  spdlog::info("device auto: using the CPU ({})", inv.why_none);
  return make_cpu_backend(workers);
}

void rethrow_stage_error(const Step& step, const std::string& device) {
  try {
    throw;
  } catch (const std::exception& e) {
    throw InputError(step.node->name + " (" + step.node->pointer + ") failed on " + device + ": " + e.what());
  }
}

}  // namespace aug
