#include "lib/exec/backend.hpp"

#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/jpeg_coefficients.hpp"

namespace aug {

Shape CodedImage::shape() const {
  if (!jpeg) return pixels.shape();
  return Shape{jpeg->layout.width, jpeg->layout.height, jpeg->layout.components == 1 ? 1 : 3, DType::U8};
}

CodedImage Backend::run_coded(const Plan&, const CodedImage&, int, int) {
  throw std::logic_error(name() + " does not decode or encode JPEG on a device");
}

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
    op.run(ctx, in.ref(), out.ref());
    return out;
  }

 private:
  std::vector<HostKernelContext> contexts_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int workers) {
  return std::make_unique<CpuBackend>(workers);
}
void rethrow_stage_error(const Step& step, const std::string& device) {
  try {
    throw;
  } catch (const std::exception& e) {
    throw InputError(step.node->name + " (" + step.node->pointer + ") failed on " + device + ": " + e.what());
  }
}

}  // namespace aug
