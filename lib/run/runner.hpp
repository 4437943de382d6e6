// `augment run`: a folder of images through a pipeline into an output folder.
//
// Everything that can be refused is refused before the first write: the pipeline (already
// validated), the inputs, output names that collide, an output folder inside the input, a
// non-empty output folder without --overwrite/--resume, the device.
//
// Then decoding, augmenting and encoding overlap across images: N workers take work from two
// bounded queues (decoded images, augmented images), preferring the later stage, so at most a
// few images per worker are in memory whatever the number of inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/run/devices.hpp"
#include "lib/io/codec.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/run/balance.hpp"

namespace aug {

struct RunOptions {
  std::filesystem::path input, output;
  std::uint32_t copies = 1;
  BalanceSpec balance;                // --balance / --copies-per-class: copies from the labels' classes
  std::optional<std::uint64_t> seed;  // overrides the pipeline's
  int threads = 0;                    // 0: every core
  std::string format = "keep";        // keep, jpg, png, webp, tiff, bmp
  int quality = 95;
  std::string name;                   // --name template; empty: {stem}{ext} or {stem}_{copy}{ext}
  bool overwrite = false;
  bool resume = false;
  bool dry_run = false;
  std::optional<std::filesystem::path> manifest;
  int shard_index = 0, shard_count = 1;
  std::size_t max_errors = 0;         // stop after this many failed inputs; 0: never
  DecodeOptions decode;
  bool device_jpeg = false;           // --device-jpeg: JPEG pixel arithmetic on the GPU, entropy coding on the CPU
  std::vector<DeviceSpec> devices{DeviceSpec{}};  // --device (parse_devices); default the CPU
  std::string labels;                          // --labels yolo | voc | coco=FILE; empty: none
  std::optional<std::filesystem::path> masks;  // --masks DIR: a label map per image
  std::string mask_suffix = ".png";            // --mask-suffix: what replaces an image's extension
  std::optional<std::filesystem::path> masks_output;  // --masks-output; default beside OUTPUT (docs/labels.md)
  bool progress = false;              // draw a progress line on stderr (a terminal: redrawn in place)
  double progress_every = 0;          // > 0: instead, a plain line every so many seconds (logs, CI)
  std::ostream* listing = nullptr;    // where --dry-run lists the outputs
};

// What one device of a run did.
struct DeviceUse {
  std::string device;        // "cpu", "cuda:1", "cuda-emulated:0"
  std::size_t images = 0;    // outputs it augmented
  double busy_seconds = 0;   // GPU backends: time the device spent on images (upper bound)
};

struct RunSummary {
  std::string device;              // the device, or the devices separated by commas
  std::vector<DeviceUse> devices;  // each device of the run, in --device order
  std::size_t inputs = 0;          // inputs in this run (this shard)
  std::size_t outputs = 0;         // outputs written
  std::size_t existing = 0;        // outputs --resume found complete
  std::size_t failed_inputs = 0;   // inputs with at least one failed output
  std::size_t failed_outputs = 0;
  double seconds = 0;
  double device_busy_seconds = 0;  // GPU backends: time the devices spent on images, summed (upper bound)
  bool interrupted = false;
  bool stopped_early = false;      // --max-errors reached
  std::string device_failure;      // the device failed during the run, which stopped there (exit 1)
  std::size_t objects_kept = 0, objects_dropped = 0;  // labelled objects in the outputs written
  std::size_t inputs_without_labels = 0;  // --labels: inputs whose labels were not found (written with none)
  std::vector<std::string> unmatched_labels;  // --labels coco=FILE: its images that match no input
  std::map<std::int64_t, std::size_t> unknown_classes;  // class ids not among the dataset's names -> objects
  std::uint64_t seed = 0;
  std::optional<BalancePlan> balance;  // --balance / --copies-per-class: the plan (over every input)
  std::size_t jpeg_on_cpu = 0;     // --device-jpeg: JPEG inputs and outputs the CPU codec handled instead

  Exit exit_code() const;
};

// The seed a run uses: --seed, else the pipeline's "seed", else 0.
std::uint64_t effective_seed(const Pipeline& pipeline, const std::optional<std::uint64_t>& override_seed);

RunSummary run(const Pipeline& pipeline, const RunOptions& options);

}  // namespace aug
