// A backend runs a resolved Plan on one image: the CPU, or the GPU backend (lib/gpu) on a CUDA
// device or on an emulated one ("cuda-emulated": host memory, kernel bodies as host loops; what
// CI checks the kernel arithmetic and the GPU data flow with).
#pragma once

#include <memory>
#include <string>

#include "lib/core/image.hpp"
#include "lib/pipeline/pipeline.hpp"

namespace aug {

struct JpegCoefficients;  // lib/io/jpeg_coefficients.hpp

// An image as pixels, or as the quantised DCT coefficients of a JPEG file (--device-jpeg).
struct CodedImage {
  Image pixels;
  std::shared_ptr<const JpegCoefficients> jpeg;  // set: the image is what these decode to
  Shape shape() const;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "cpu", "cuda-emulated", "cuda:0"
  virtual std::string name() const = 0;
  // Runs the applied steps of `plan` on `in`. Worker w (0 <= w < workers given when opened) has
  // its own buffers and stream: calls with different workers may run at the same time.
  virtual Image run(const Plan& plan, const Image& in, int worker) = 0;
  // run() with JPEG coefficients on either side (--device-jpeg): a GPU backend reconstructs the
  // pixels of `in.jpeg` on the device, and when jpeg_quality > 0 and the result is 8-bit gray or
  // RGB, returns its coefficients at that quality (else its pixels). The other backends throw.
  virtual CodedImage run_coded(const Plan& plan, const CodedImage& in, int jpeg_quality, int worker);
  // Where to decode the images this backend will run: a GPU backend gives its pinned staging, so
  // that an input is uploaded from where it was decoded, without a copy. Empty: plain memory.
  virtual ImageAllocator input_allocator() { return {}; }
  // One operation on `in` (verify-devices runs stages one at a time).
  virtual Image run_op(const Op& op, const Image& in, int worker) = 0;
  // Seconds the device spent on images (upload to download, summed over workers; an upper
  // bound when streams overlap). 0 for the CPU, where the work is the wall time.
  virtual double busy_seconds() const { return 0; }
};

std::unique_ptr<Backend> make_cpu_backend(int workers);
// Wraps an error from a stage's kernels with the stage, the image and the device.
[[noreturn]] void rethrow_stage_error(const Step& step, const std::string& device);

}  // namespace aug
