// verify-devices: do the CPU and the GPUs agree? For each input and sample type the pipeline is
// resolved once; each applied stage runs on every device from the CPU's output of the previous
// stage (a difference belongs to the stage that made it), every device pair is compared, and each
// device's own chain is followed end to end to name the first stage where it diverged. Device
// comparisons are held to the stages' declared tolerances; comparisons between sample types
// (--dtypes) are reported as information. With --device-jpeg, the JPEG codec's device half is
// compared too: each GPU's reconstruction of a JPEG input against the CPU decoder's pixels, and its
// encoding of the CPU's final image against the CPU encoder's file, byte for byte (tolerance 0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/verify/compare.hpp"

namespace aug {

struct VerifyDevice {
  std::string name;                  // "cpu", "cuda:0", "cuda-emulated:0"
  std::string description;           // e.g. "NVIDIA H100 80GB HBM3, driver 13.0"
  bool gpu = false;                  // a real GPU
  std::unique_ptr<Backend> backend;  // opened with at least VerifyOptions::threads workers
};

struct VerifyOptions {
  std::filesystem::path input;          // folder or file
  std::size_t max_images = 0;           // the first N inputs; 0: all
  std::optional<std::uint64_t> seed;    // overrides the pipeline's
  std::vector<DType> dtypes;            // empty: each image as decoded
  std::map<std::string, double> tolerance;  // stage name -> tolerance, overriding the declared one
  int threads = 1;
  std::size_t max_evidence = 16;        // comparisons kept as pictures for the HTML report
  bool device_jpeg = false;             // compare the devices' JPEG decoding and encoding (--device-jpeg)
  int jpeg_quality = 95;                // the quality the encoding is compared at
};

struct PairResult {
  std::string a, b;       // device names, or sample type names for type comparisons
  bool gating = true;     // device comparisons gate the exit code; type comparisons inform
  double tolerance = 0;
  Difference diff;
  bool ok() const { return !gating || diff.over == 0; }
};

struct StageRecord {
  std::uint32_t index = 0;     // among the applied stages of this image
  std::uint32_t position = 0;  // the stage's position in the pipeline file (pre-order)
  std::string stage, at;
  nlohmann::json params;
  std::vector<PairResult> pairs;
};

struct ImageRecord {
  std::string input;
  DType dtype = DType::U8;
  Shape shape;
  // --device-jpeg: each device's decoding of the input against the CPU's (values), and its encoding
  // of the CPU's final image against the CPU's (bytes: `values` counts the longer file's bytes,
  // `differing` the bytes that differ or are missing). Empty when the CPU codec does that work in a
  // run, with the reason in jpeg_on_cpu.
  std::vector<PairResult> jpeg_decode, jpeg_encode;
  std::vector<std::string> jpeg_on_cpu;
  std::vector<StageRecord> stages;      // stage by stage
  std::vector<PairResult> end_to_end;   // each device's own chain, final outputs
  std::map<std::string, std::string> first_divergence;  // device -> "at (stage)" where its chain left the CPU's
  std::string error;                    // unreadable input, or a stage that cannot take it
};

// Pictures of a comparison for the HTML report: the two outputs (8-bit RGB, cropped around the
// worst value when large) and an amplified difference heat-map.
struct Evidence {
  std::string title;
  std::string a_name, b_name;  // what the two pictures are ("cpu", "cuda:0", "u8", ...)
  bool gating = true;
  Image a, b, heat;
  double max_abs = 0;
};

// A device as the report names it.
struct ReportDevice {
  std::string name, description;
  bool gpu = false;
};

struct VerifyReport {
  std::vector<ReportDevice> devices;
  bool gpu_involved = false;
  std::string pipeline_file;
  std::uint64_t seed = 0;
  std::vector<DType> dtypes;
  int jpeg_quality = 0;  // --device-jpeg: the quality the encoding was compared at; 0: not compared
  std::vector<ImageRecord> images;
  std::vector<Evidence> evidence;
  double seconds = 0;

  bool all_within() const;
  Exit exit_code() const;  // 3 when a device comparison exceeds its tolerance, else 2 when an input failed
  nlohmann::json to_json(const nlohmann::json& pipeline) const;
};

// "all" or empty: the CPU and every GPU, or the CPU and every emulated device when there is none (an error
// with require_gpu). Otherwise a comma list of cpu, cuda:N, cuda-emulated[:N]; the CPU is always first.
std::vector<VerifyDevice> open_verify_devices(const std::string& list, bool require_gpu, int workers);

VerifyReport verify(const Pipeline& pipeline, std::vector<VerifyDevice>& devices, const VerifyOptions& options);

// The table printed on stdout: one row per stage x device pair (and sample type), then end to end.
std::string verify_table(const VerifyReport& report);
// One self-contained HTML page (pictures inline).
std::string verify_html(const VerifyReport& report);

// The report's schema identifier; docs/verify-report.md documents it.
inline constexpr const char* kVerifySchema = "augment-verify/1";

}  // namespace aug
