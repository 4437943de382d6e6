// libFuzzer target: pipeline file text -> validated pipeline -> a few plans -> (small) images.
// Built twice: fuzz_pipeline reads the text as JSON, fuzz_pipeline_yaml (AUG_FUZZ_YAML) as YAML.
// A rejected file must be rejected with the project's errors (aug::Error and its subclasses);
// any other exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/pipeline/pipeline.hpp"

namespace {

// Images large enough to go through every stage's code, small enough to keep iterations fast.
constexpr std::size_t kMaxRunValues = 64 * 64 * 4;

bool small_enough(const aug::Plan& plan) {
  if (plan.out.values() > kMaxRunValues) return false;
  for (const aug::Step& s : plan.steps)
    if (s.op && (s.op->in_shape().values() > kMaxRunValues || s.op->out_shape().values() > kMaxRunValues)) return false;
  return true;
}

// Deterministic content over the type's whole range (float in [0, 1]).
aug::Image pattern(const aug::Shape& s) {
  aug::Image im(s);
  const std::size_t n = s.values();
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned v = static_cast<unsigned>((i * 37 + i / 5) % 256);
    switch (s.dtype) {
      case aug::DType::U8: im.data()[i] = static_cast<std::uint8_t>(v); break;
      case aug::DType::U16: reinterpret_cast<std::uint16_t*>(im.data())[i] = static_cast<std::uint16_t>(v * 257); break;
      case aug::DType::F32: reinterpret_cast<float*>(im.data())[i] = static_cast<float>(v) / 255.0f; break;
    }
  }
  return im;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<aug::Backend> cpu = aug::make_cpu_backend(1);
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<aug::Pipeline> pipeline;
  try {
#if defined(AUG_FUZZ_YAML)
    pipeline = std::make_unique<aug::Pipeline>(aug::Pipeline::parse_yaml(text, "fuzz.yaml"));
#else
    pipeline = std::make_unique<aug::Pipeline>(aug::Pipeline::parse(text, "fuzz.json"));
#endif
  } catch (const aug::Error&) {
    return 0;  // a documented rejection
  }
  const aug::Shape shapes[] = {{1, 1, 1, aug::DType::U8}, {17, 9, 3, aug::DType::U8},
                               {32, 24, 4, aug::DType::U16}, {13, 21, 3, aug::DType::F32}};
  std::uint32_t copy = 0;
  for (const aug::Shape& shape : shapes) {
    try {
      const aug::Plan plan = pipeline->plan(pipeline->seed().value_or(7), "dir/image.png", copy++, shape);
      if (!small_enough(plan)) continue;
      const aug::Image out = cpu->run(plan, pattern(plan.in), 0);
      if (out.shape() != plan.out) __builtin_trap();  // the plan promised another shape
    } catch (const aug::Error&) {
      // an image the pipeline cannot take (documented InputError)
    }
  }
  return 0;
}
