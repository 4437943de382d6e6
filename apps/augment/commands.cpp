#include "apps/augment/commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lib/core/text.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/files.hpp"
#include "lib/run/merge.hpp"
#include "lib/run/interrupt.hpp"
#include "lib/run/shard.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/gpu/gpu.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/describe.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/pipeline/python_import.hpp"
#include "lib/preview/preview.hpp"
#include "lib/verify/verify.hpp"

namespace aug::app {

std::string version_text() {
  // The libraries that decide output bytes, and the CUDA runtime and driver ("none" without).
  const gpu::Inventory inv = gpu::inventory();
  std::string text = std::string("augment ") + AUGMENT_VERSION + " (" + (AUGMENT_WITH_CUDA ? "with CUDA" : "without CUDA") +
                     ")\n" + join(codec_library_versions(), ", ") + "\nCUDA runtime " +
                     gpu::cuda_version(inv.runtime_version) + ", driver " + gpu::cuda_version(inv.driver_version);
  if (!inv.built_with_cuda) text += " (built without CUDA)";
  else if (inv.driver_version == 0) text += " (no NVIDIA driver)";
  return text;
}

namespace {

const char* kDeviceHelp =
    "cpu, auto (the first usable GPU, else the CPU), cuda, cuda:N, cuda-emulated[:N] (an emulated GPU, for testing); "
    "several GPUs share the images: cuda:0,cuda:2 or cuda:all (also cuda-emulated:all)";

// "1 input", "2 inputs".
std::string count(std::size_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

// A seed is an integer from 0 to 2^64 - 1: "-1" is refused (it would wrap to the largest value).
const CLI::Validator kSeedCheck(
    [](std::string& v) -> std::string {
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        return "the seed must be an integer from 0 to 18446744073709551615, not " + v;
      return {};
    },
    "SEED", "non-negative");

// --balance's plan in the --log-format json summary: null without one.
nlohmann::json balance_json(const RunSummary& s) {
  if (!s.balance) return nullptr;
  nlohmann::json classes = nlohmann::json::array();
  for (const BalanceClass& c : s.balance->classes)
    classes.push_back({{"class", c.name},
                       {"images", c.images},
                       {"input_frequency", c.input_frequency},
                       {"repeat", c.repeat},
                       {"outputs", c.outputs},
                       {"output_frequency", c.output_frequency}});
  return {{"method", s.balance->spec.describe()},
          {"inputs", s.balance->inputs},
          {"outputs", s.balance->outputs},
          {"classes", classes}};
}

}  // namespace

Commands::Commands(CLI::App& app, const GlobalOptions& global) : app_(app), global_(global) {
  run_ = app.add_subcommand("run", "Augment every image under a folder into another folder");
  run_->add_option("-c,--config", pipeline_, "pipeline file (JSON, or YAML: .yaml / .yml)")->required();
  run_->add_option("-i,--input", input_, "input folder (searched recursively) or image file")->required();
  run_->add_option("-o,--output", output_, "output folder (relative folders are mirrored)")->required();
  run_->add_option("--copies", run_options_.copies, "augmented copies per input")->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  run_->add_option("--seed", seed_, "seed (overrides the pipeline's \"seed\"; default 0)")->check(kSeedCheck);
  run_->add_option("--threads", run_options_.threads, "worker threads (default: every core)")
      ->check(CLI::Range(1, 1024));
  run_->add_option("--format", run_options_.format, "output format: keep, jpg, png, webp, tiff or bmp")
      ->capture_default_str()
      ->check(CLI::IsMember({"keep", "jpg", "png", "webp", "tiff", "bmp"}));
  run_->add_option("--quality", run_options_.quality, "JPEG and WebP quality")->capture_default_str()
      ->check(CLI::Range(1, 100));
  run_->add_option("--name", run_options_.name,
                   "output name template: {stem}, {ext}, {copy} (default {stem}{ext}, or {stem}_{copy}{ext} with "
                   "--copies > 1 or --balance)");
  auto* overwrite = run_->add_flag("--overwrite", run_options_.overwrite, "replace files in a non-empty output folder");
  run_->add_flag("--resume", run_options_.resume, "keep outputs that are already complete, make the others")
      ->excludes(overwrite);
  run_->add_option("--manifest", manifest_, "write a JSON Lines record of every output and its parameters");
  run_->add_option("--shard", shard_,
                   "process shard K of N (K/N, 0-based): the inputs whose path hashes to K; auto: K and N from a Slurm "
                   "job array or a Kubernetes Indexed Job (docs/cluster.md)");
  run_->add_option("--shards", shards_, "the number of shards for --shard auto: a Kubernetes Indexed Job's completions; with Slurm, the task IDs become the shards")
      ->check(CLI::Range(1, 1 << 20));
  auto* max_errors = run_->add_option("--max-errors", run_options_.max_errors,
                                      "stop after N failed inputs (default: never)");
  run_->add_flag("--fail-fast", fail_fast_, "stop at the first failed input")->excludes(max_errors);
  run_->add_flag("--dry-run", run_options_.dry_run, "list what would be written, write nothing");
  run_->add_flag("--allow-truncated", run_options_.decode.allow_truncated,
                 "accept truncated JPEGs (the missing part is grey)");
  run_->add_option("--max-pixels", max_pixels_, "refuse larger images (checked from the header)")
      ->capture_default_str();
  run_->add_option("--device", device_, kDeviceHelp)->capture_default_str();
  run_->add_flag("--device-jpeg", run_options_.device_jpeg,
                 "with a GPU --device: JPEG inputs are entropy-decoded on the CPU and reconstructed on the GPU, JPEG "
                 "outputs transformed and quantised on the GPU and entropy-coded on the CPU; the same bytes as "
                 "without it. Files it cannot take (CMYK, 4:1:1, EXIF-rotated...) use the CPU codec. An error with "
                 "--device cpu");
  run_->add_option("--labels", run_options_.labels,
                   "labels that move with the pixels: yolo, yolo-obb, dota, voc or coco=FILE (docs/labels.md)");
  auto* balance = run_->add_option("--balance", balance_,
                   "class-balanced copies from the labels: repeat-factor[:T] gives an image --copies x max(1, "
                   "sqrt(T / f)) over its classes (f: the fraction of images with the class; T default 0.001), "
                   "rounded stochastically (docs/labels.md)");
  run_->add_option("--copies-per-class", copies_per_class_,
                   "class-balanced copies from a file of targets ({\"CLASS\": COPIES} or lines CLASS COPIES): an image "
                   "gets the largest target among its classes, --copies without one")
      ->excludes(balance);
  run_->add_option("--masks", masks_, "folder of segmentation masks, one per image by relative path and stem");
  run_->add_option("--mask-suffix", run_options_.mask_suffix, "what replaces an image's extension to name its mask")
      ->capture_default_str();
  run_->add_option("--masks-output", masks_output_, "where the output masks go (default: OUTPUT/masks)");
  run_->add_option("--progress", progress_,
                   "progress: auto (a line redrawn in place on a terminal; plain lines when $CI is set or stderr is "
                   "not a terminal), always (redrawn in place), plain (a line every --progress-every seconds) or never")
      ->check(CLI::IsMember({"auto", "always", "plain", "never"}))
      ->capture_default_str();
  run_->add_option("--progress-every", progress_every_, "seconds between plain progress lines")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 86400.0));

  validate_ = app.add_subcommand("validate", "Check a pipeline file; exit 0 when valid, 1 otherwise");
  validate_->add_option("pipeline", validate_path_, "pipeline file (JSON or YAML)")->required();

  stages_ = app.add_subcommand("stages", "List the stages and compositions");
  stages_->add_flag("--json", json_, "as JSON");
  stages_->add_flag("--markdown", markdown_, "as the Markdown table in README.md's \"Stages\" section")
      ->excludes(stages_->get_option("--json"));

  describe_ = app.add_subcommand("describe", "A stage's parameters, ranges, backends and parity tolerance");
  describe_->add_option("stage", stage_name_, "stage name")->required();
  describe_->add_flag("--json", json_, "as JSON (with the stage's JSON Schema)");

  schema_ = app.add_subcommand("schema", "Print the JSON Schema of the pipeline format");

  preview_ = app.add_subcommand("preview", "Write a contact sheet: a few images next to their augmented variants");
  preview_->add_option("-c,--config", pipeline_, "pipeline file (JSON or YAML)")->required();
  preview_->add_option("-i,--input", input_, "input folder (its first images, sorted) or image file")->required();
  preview_->add_option("-o,--output", preview_output_, "the sheet: .html (self-contained) or .png")->capture_default_str();
  preview_->add_option("--images", preview_images_, "how many inputs")->capture_default_str()->check(CLI::Range(1, 1000));
  preview_->add_option("--variants", preview_variants_, "variants per input: copies 0..N-1 of augment run")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  preview_->add_option("--seed", seed_, "seed (overrides the pipeline's, as run's)")->check(kSeedCheck);
  preview_->add_option("--device", device_, kDeviceHelp)->capture_default_str();
  preview_->add_option("--labels", run_options_.labels, "draw labels: yolo, yolo-obb, dota, voc or coco=FILE (as run)");
  preview_->add_option("--masks", masks_, "lay masks over the tiles (as run)");
  preview_->add_option("--mask-suffix", run_options_.mask_suffix, "what replaces an image's extension to name its mask")
      ->capture_default_str();
  preview_->add_option("--quality", run_options_.quality, "JPEG and WebP quality of the tiles (as run)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));

  tile_options_.decode.max_pixels = 2'000'000'000;  // tiling is for images too large for a pipeline
  tile_ = app.add_subcommand("tile",
                             "Cut large images into overlapping tiles of one size, with their labels and masks "
                             "(docs/tiling.md)");
  tile_->add_option("-i,--input", tile_options_.input, "input folder (searched recursively) or image file")->required();
  tile_->add_option("-o,--output", tile_options_.output, "output folder: IMAGE_x<X>_y<Y>.EXT per tile")->required();
  tile_->add_option("--size", tile_size_, "the tile: W or WxH pixels")->required();
  tile_->add_option("--overlap", tile_options_.overlap, "the fraction of a tile its neighbours share, [0, 1)")
      ->capture_default_str();
  tile_->add_option("--labels", tile_options_.labels, "labels cut with the tiles: yolo, yolo-obb, dota, voc or coco=FILE (as run)");
  tile_->add_option("--min-visibility", tile_options_.min_visibility,
                    "keep an object cut by a tile's edge when this fraction of it is in the tile")
      ->capture_default_str();
  tile_->add_option("--masks", tile_options_.masks, "folder of segmentation masks, cut with the tiles (as run)");
  tile_->add_option("--mask-suffix", tile_options_.mask_suffix, "what replaces an image's extension to name its mask")
      ->capture_default_str();
  tile_->add_option("--masks-output", tile_options_.masks_output, "where the tiles' masks go (as run)");
  tile_->add_option("--format", tile_options_.format, "tile format: keep, jpg, png, webp, tiff or bmp")
      ->capture_default_str()
      ->check(CLI::IsMember({"keep", "jpg", "png", "webp", "tiff", "bmp"}));
  tile_->add_option("--quality", tile_options_.quality, "JPEG and WebP quality")->capture_default_str()
      ->check(CLI::Range(1, 100));
  tile_->add_option("--manifest", tile_options_.manifest, "where each tile came from, JSON Lines (default OUTPUT/tiles.jsonl)");
  tile_->add_option("--max-pixels", tile_options_.decode.max_pixels, "refuse larger images (checked from the header)")
      ->capture_default_str();
  tile_->add_option("--threads", tile_options_.threads, "worker threads (default: every core)")->check(CLI::Range(1, 1024));
  tile_->add_flag("--overwrite", tile_options_.overwrite, "replace files in a non-empty output folder");

  merge_ = app.add_subcommand("merge", "Join the manifests or COCO files of a run's shards into one (docs/cluster.md)");
  merge_->add_option("files", merge_files_, "the shards' manifests (.jsonl) or COCO files (.json)")->required();
  merge_->add_option("-o,--output", merge_output_, "the joined file")->required();

  import_ = app.add_subcommand("import",
                               "Convert another library's pipeline into an augment pipeline: Albumentations' A.save "
                               "file (JSON or YAML), or the Compose(...) of an Albumentations or torchvision training "
                               "script (.py, read without running it)");
  import_->add_option("library", import_from_, "the library: albumentations or torchvision")
      ->required()
      ->check(CLI::IsMember({"albumentations", "torchvision"}));
  import_->add_option("file", validate_path_,
                      "its file: a Python script (.py), or for albumentations A.save's JSON or YAML");
  import_->add_option("--name", import_name_,
                      "in a script with several pipelines, the one to import: its variable or function name "
                      "(train_transform, get_train_transforms) or its line");
  import_->add_option("--release", import_release_,
                      "albumentations, Python script: the release it is written for (1 or 2), where its calls do not "
                      "say (default 1)")
      ->check(CLI::IsMember({1, 2}));
  import_->add_option("-o,--output", import_output_, "write the pipeline (JSON) to FILE instead of stdout");
  import_->add_flag("--table", markdown_,
                    "print the library's mapping of transforms to stages (docs/albumentations.md) and exit");

  devices_ = app.add_subcommand("devices", "List the CUDA GPUs, or say why there is none");
  devices_->add_flag("--json", json_, "as JSON");

  verify_ = app.add_subcommand("verify-devices",
                               "Check that the CPU and the GPUs give the same pixels, stage by stage (also: augment "
                               "--verify-devices ...). Exit 0 when every comparison is within tolerance, 3 otherwise");
  verify_->add_option("-c,--config", pipeline_, "pipeline file (JSON, or YAML: .yaml / .yml)")->required();
  verify_->add_option("-i,--input", input_, "images to check, a folder or a file (default: the built-in samples)");
  verify_->add_option("--devices", verify_devices_,
                      "all (the CPU and every GPU; the emulated ones without a GPU) or a list: cpu,cuda:0,cuda:1,cuda-emulated:0")
      ->capture_default_str();
  verify_->add_option("--dtypes", verify_dtypes_, "also compare processing each image as these types: u8,u16,f32");
  verify_->add_option("--images", verify_images_, "check the first N inputs only");
  verify_->add_option("--seed", seed_, "seed (overrides the pipeline's)")->check(kSeedCheck);
  verify_->add_option("--tolerance", tolerances_, "STAGE=VALUE: a tolerance instead of the stage's declared one")
      ->take_all();
  verify_->add_flag("--require-gpu", require_gpu_, "fail (exit 1) when no GPU takes part");
  verify_->add_flag("--device-jpeg", run_options_.device_jpeg,
                    "also compare the JPEG codec as run --device-jpeg splits it: each GPU's decoding of the JPEG "
                    "inputs (values) and its encoding of the CPU's final image (file bytes)");
  verify_->add_option("--quality", run_options_.quality, "the JPEG quality the encoding is compared at")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  verify_->add_option("--report", report_, "write the JSON report (docs/verify-report.md) to FILE");
  verify_->add_option("--html", html_, "write a self-contained HTML report with difference heat-maps to FILE");
  verify_->add_option("--threads", run_options_.threads, "worker threads (default: every core)")->check(CLI::Range(1, 1024));
}

Exit Commands::run_selected() {
  if (run_->parsed()) return run();
  if (validate_->parsed()) return validate();
  if (stages_->parsed()) return stages();
  if (describe_->parsed()) return describe();
  if (schema_->parsed()) return schema();
  if (devices_->parsed()) return devices();
  if (verify_->parsed()) return verify_devices();
  if (import_->parsed()) return import_pipeline();
  if (preview_->parsed()) return preview();
  if (merge_->parsed()) return merge();
  if (tile_->parsed()) return tile();
  throw UsageError("no command given; see augment --help");
}

Exit Commands::run() {
  RunOptions& o = run_options_;
  o.devices = parse_devices(device_);
  if (!shard_.empty()) {
    const Shard shard = parse_shard(shard_, shards_);
    o.shard_index = shard.index;
    o.shard_count = shard.count;
    if (shard_ == "auto") spdlog::info("shard {} of {}, from the {}", shard.index, shard.count, shard.source);
  } else if (shards_) {
    throw UsageError("--shards " + std::to_string(*shards_) + " is the number of shards for --shard auto, which is not given");
  }
  const Pipeline pipeline = Pipeline::load_file(pipeline_);
  o.input = input_;
  o.output = output_;
  o.seed = seed_;
  o.decode.max_pixels = max_pixels_;
  if (fail_fast_) o.max_errors = 1;
  if (!manifest_.empty()) o.manifest = manifest_;
  if (!masks_.empty()) o.masks = masks_;
  if (!masks_output_.empty()) o.masks_output = masks_output_;
  if (!balance_.empty()) o.balance = parse_balance(balance_);
  if (!copies_per_class_.empty()) o.balance = read_copies_per_class(copies_per_class_);
  const bool terminal = isatty(STDERR_FILENO) && isatty(STDOUT_FILENO) && !std::getenv("CI");
  o.progress = progress_ == "always" || progress_ == "plain" || (progress_ == "auto" && !o.dry_run);
  if (progress_ == "plain" || (progress_ == "auto" && !terminal)) o.progress_every = progress_every_;
  o.listing = &std::cout;
  install_interrupt_handler();

  const RunSummary s = aug::run(pipeline, o);
  if (o.dry_run) return Exit::ok;
  const double rate = s.seconds > 0 ? s.outputs / s.seconds : 0;
  if (global_.log_format == "json") {
    nlohmann::json per_device = nlohmann::json::array();
    for (const DeviceUse& d : s.devices)
      per_device.push_back({{"device", d.device}, {"images", d.images}, {"busy_seconds", d.busy_seconds}});
    nlohmann::json unknown = nlohmann::json::object();  // class id -> objects
    for (const auto& [id, n] : s.unknown_classes) unknown[std::to_string(id)] = n;
    std::cout << nlohmann::json{{"inputs", s.inputs},
                                {"outputs", s.outputs},
                                {"existing", s.existing},
                                {"failed_inputs", s.failed_inputs},
                                {"failed_outputs", s.failed_outputs},
                                {"seconds", s.seconds},
                                {"images_per_second", rate},
                                {"device", s.device},
                                {"device_busy_seconds", s.device_busy_seconds},
                                {"devices", per_device},
                                {"seed", s.seed},
                                {"interrupted", s.interrupted},
                                {"objects_kept", s.objects_kept},
                                {"objects_dropped", s.objects_dropped},
                                {"inputs_without_labels", s.inputs_without_labels},
                                {"unmatched_labels", s.unmatched_labels},
                                {"unknown_classes", unknown},
                                {"jpeg_on_cpu", s.jpeg_on_cpu},
                                {"balance", balance_json(s)},
                                {"exit_code", static_cast<int>(s.exit_code())}}
                     .dump()
              << std::endl;
  } else {
    char line[512];
    std::snprintf(line, sizeof line, "augment: %s, %s written%s, %s; %.2f s, %.1f images/s on %s, seed %llu%s\n",
                  count(s.inputs, "input").c_str(), count(s.outputs, "output").c_str(),
                  s.existing ? (", " + std::to_string(s.existing) + " already complete").c_str() : "",
                  count(s.failed_inputs, "failed input").c_str(), s.seconds, rate, s.device.c_str(),
                  static_cast<unsigned long long>(s.seed),
                  s.interrupted ? " (interrupted)"
                                : !s.device_failure.empty() ? " (stopped: the device failed)"
                                : (s.stopped_early ? " (stopped: --max-errors)" : ""));
    std::cout << line;
    if (!o.labels.empty()) {
      std::cout << "augment: labels: " << count(s.objects_kept, "object") << " kept, " << s.objects_dropped
                << " dropped"
                << (s.objects_dropped == 0 ? ""
                    : o.manifest           ? " (the manifest says why)"
                                           : " (--manifest FILE records why)")
                << (s.inputs_without_labels ? "; " + count(s.inputs_without_labels, "input") + " without labels" : "")
                << (s.unmatched_labels.empty() ? ""
                                               : "; " + std::to_string(s.unmatched_labels.size()) +
                                                     " labelled image" + (s.unmatched_labels.size() == 1 ? "" : "s") +
                                                     " matching no input")
                << "\n";
    }
    if (o.device_jpeg && s.jpeg_on_cpu) {
      std::snprintf(line, sizeof line, "augment: --device-jpeg: %zu JPEG files decoded or encoded on the CPU instead "
                    "(--log-level debug lists them)\n", s.jpeg_on_cpu);
      std::cout << line;
    }
    if (s.devices.size() > 1) {
      // Images per device; a device's busy time is its own share of the wall time.
      for (const DeviceUse& d : s.devices) {
        std::snprintf(line, sizeof line, "augment: %s: %zu images", d.device.c_str(), d.images);
        std::cout << line;
        if (d.busy_seconds > 0) {
          std::snprintf(line, sizeof line, ", busy %.2f s of %.2f s (%.0f%%)", d.busy_seconds, s.seconds,
                        100 * d.busy_seconds / s.seconds);
          std::cout << line;
        }
        std::cout << "\n";
      }
    } else if (s.device_busy_seconds > 0) {
      std::snprintf(line, sizeof line, "augment: %s busy %.2f s of %.2f s (%.0f%%; summed over streams, an upper bound)\n",
                    s.device.c_str(), s.device_busy_seconds, s.seconds, 100 * s.device_busy_seconds / s.seconds);
      std::cout << line;
    }
    std::cout << std::flush;
  }
  return s.exit_code();
}

Exit Commands::validate() {
  const Pipeline p = Pipeline::load_file(validate_path_);
  std::cout << validate_path_ << ": valid (" << p.stage_count() << " stage" << (p.stage_count() == 1 ? "" : "s")
            << (p.seed() ? ", seed " + std::to_string(*p.seed()) : std::string()) << ")\n";
  return Exit::ok;
}

Exit Commands::stages() {
  if (json_) std::cout << stages_json().dump(2) << "\n";
  else if (markdown_) std::cout << stage_table_markdown();
  else std::cout << stages_text();
  return Exit::ok;
}

Exit Commands::describe() {
  const StageSpec* spec = find_spec(stage_name_);
  if (!spec) {
    const auto near = closest(stage_name_, every_spec_name());
    throw UsageError("unknown stage \"" + stage_name_ + "\"" + (near.empty() ? "" : "; did you mean " + quoted_list(near) + "?") +
                     " (`augment stages` lists them)");
  }
  if (json_) std::cout << describe_json(*spec).dump(2) << "\n";
  else std::cout << describe_text(*spec);
  return Exit::ok;
}

Exit Commands::preview() {
  PreviewOptions o;
  o.input = input_;
  o.output = preview_output_;
  o.images = preview_images_;
  o.variants = preview_variants_;
  o.seed = seed_;
  o.device = parse_device(device_);
  o.labels = run_options_.labels;
  if (!masks_.empty()) o.masks = masks_;
  o.mask_suffix = run_options_.mask_suffix;
  o.quality = run_options_.quality;
  o.decode.max_pixels = max_pixels_;
  check_output_file(o.output, "-o", o.input);
  const Pipeline pipeline = Pipeline::load_file(pipeline_);
  const PreviewSummary s = aug::preview(pipeline, o);
  spdlog::info("{}: {} image(s), {} variant(s) on {}", preview_output_, s.images, s.tiles, s.device);
  return Exit::ok;
}

Exit Commands::merge() {
  std::vector<std::filesystem::path> files(merge_files_.begin(), merge_files_.end());
  const MergeSummary s = merge_files(files, merge_output_);
  spdlog::info("{}: {} {} file(s) joined, {} {} ({} in more than one file)", merge_output_, s.files, s.kind,
               s.records, s.kind == "COCO" ? "images" : "records", s.duplicates);
  return Exit::ok;
}

Exit Commands::tile() {
  TileOptions& o = tile_options_;
  const auto x = tile_size_.find('x');
  try {
    std::size_t used = 0;
    o.width = std::stoi(tile_size_.substr(0, x), &used);
    if (used != (x == std::string::npos ? tile_size_.size() : x)) throw std::invalid_argument(tile_size_);
    o.height = x == std::string::npos ? o.width : std::stoi(tile_size_.substr(x + 1), &used);
    if (x != std::string::npos && used != tile_size_.size() - x - 1) throw std::invalid_argument(tile_size_);
  } catch (const std::exception&) {
    throw UsageError("--size " + tile_size_ + ": expected W or WxH in pixels, e.g. 640 or 1024x768");
  }
  const TileSummary s = aug::tile(o);
  std::cout << "augment tile: " << s.inputs << " input" << (s.inputs == 1 ? "" : "s") << ", " << s.tiles << " tile"
            << (s.tiles == 1 ? "" : "s") << " written, " << s.failed_inputs << " failed input"
            << (s.failed_inputs == 1 ? "" : "s") << "; " << std::fixed << std::setprecision(2) << s.seconds << " s";
  if (!o.labels.empty()) std::cout << "; labels: " << s.objects << " objects, " << s.object_tiles << " over the tiles";
  std::cout << std::endl;
  return s.failed_inputs ? Exit::file_errors : Exit::ok;
}

Exit Commands::import_pipeline() {
  const bool torchvision = import_from_ == "torchvision";
  if (markdown_) {
    std::cout << (torchvision ? torchvision_table_markdown() : albumentations_table_markdown());
    return Exit::ok;
  }
  if (validate_path_.empty())
    throw UsageError("import " + import_from_ + ": name the file (" +
                     (torchvision ? "the training script, .py" : "the script, .py, or A.save's JSON or YAML") + ")");
  const bool python = std::filesystem::path(validate_path_).extension() == ".py";
  if (torchvision && !python)
    throw UsageError("import torchvision: " + validate_path_ +
                     " is not a Python file; torchvision pipelines are read from the script (.py) that builds them");
  if (!python && !import_name_.empty())
    throw UsageError("import albumentations: --name picks a pipeline of a Python script; " + validate_path_ +
                     " holds one saved pipeline");
  if (import_release_ != 0 && (torchvision || !python))
    throw UsageError("import " + import_from_ + ": --release is for Albumentations scripts (.py); " +
                     (torchvision ? "torchvision has one reading" : "a saved pipeline names its release"));
  const Imported imported = torchvision ? import_torchvision_python(validate_path_, import_name_)
                            : python    ? import_albumentations_python(validate_path_, import_name_, import_release_)
                                        : import_albumentations_file(validate_path_);
  for (const std::string& note : imported.notes) spdlog::warn("{}", note);
  const std::string text = pipeline_text(imported.pipeline);
  if (import_output_.empty()) {
    std::cout << text;
    return Exit::ok;
  }
  std::ofstream f(import_output_, std::ios::binary);
  if (!(f << text) || !f.flush()) throw UsageError("cannot write " + import_output_);
  spdlog::info("{}: {} stage(s) written to {}", validate_path_, imported.pipeline["stages"].size(), import_output_);
  return Exit::ok;
}

Exit Commands::schema() {
  std::cout << pipeline_schema().dump(2) << "\n";
  return Exit::ok;
}

Exit Commands::devices() {
  const gpu::Inventory inv = gpu::inventory();
  if (json_) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : inv.devices)
      devices.push_back({{"index", d.index},
                         {"device", "cuda:" + std::to_string(d.index)},
                         {"name", d.name},
                         {"memory_bytes", d.memory_bytes},
                         {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)}});
    nlohmann::json j{{"built_with_cuda", inv.built_with_cuda},
                     {"driver_version", gpu::cuda_version(inv.driver_version)},
                     {"runtime_version", gpu::cuda_version(inv.runtime_version)},
                     {"devices", devices}};
    if (inv.devices.empty()) j["why_none"] = inv.why_none;
    nlohmann::json emulated = nlohmann::json::array();
    for (int i = 0; i < gpu::emulated_device_count(); ++i) emulated.push_back("cuda-emulated:" + std::to_string(i));
    j["emulated_devices"] = emulated;
    std::cout << j.dump(2) << "\n";
    return Exit::ok;
  }
  std::cout << "CUDA driver " << gpu::cuda_version(inv.driver_version) << ", runtime "
            << gpu::cuda_version(inv.runtime_version) << (inv.built_with_cuda ? "" : " (built without CUDA)") << "\n";
  const int emulated = gpu::emulated_device_count();
  const std::string emulated_line =
      "emulated, for testing: " +
      (emulated == 1 ? std::string("cuda-emulated:0")
                     : "cuda-emulated:0 to cuda-emulated:" + std::to_string(emulated - 1) + " (--device cuda-emulated:all)") +
      "; AUGMENT_EMULATED_GPUS sets how many\n";
  if (inv.devices.empty()) {
    std::cout << "no usable CUDA GPU: " << inv.why_none << "\n" << emulated_line;
    return Exit::ok;
  }
  for (const auto& d : inv.devices) {
    char line[256];
    std::snprintf(line, sizeof line, "cuda:%d  %s  %.1f GiB  compute capability %d.%d\n", d.index, d.name.c_str(),
                  d.memory_bytes / double(1 << 30), d.cc_major, d.cc_minor);
    std::cout << line;
  }
  if (inv.devices.size() > 1)
    std::cout << "--device cuda:all spreads a run's images over these " << inv.devices.size()
              << " GPUs (or a list: --device cuda:" << inv.devices[0].index << ",cuda:" << inv.devices[1].index << ")\n";
  std::cout << emulated_line;
  return Exit::ok;
}

Exit Commands::verify_devices() {
  VerifyOptions o;
  o.input = input_.empty() ? std::string(AUGMENT_SAMPLES_DIR) : input_;
  if (input_.empty() && !std::filesystem::exists(o.input))
    throw UsageError("the built-in samples are not at " + o.input.string() + "; pass -i FOLDER");
  o.max_images = verify_images_;
  o.seed = seed_;
  o.threads = run_options_.threads > 0 ? run_options_.threads : std::max(1u, std::thread::hardware_concurrency());
  o.device_jpeg = run_options_.device_jpeg;
  o.jpeg_quality = run_options_.quality;
  if (!verify_dtypes_.empty()) {
    std::stringstream in(verify_dtypes_);
    for (std::string t; std::getline(in, t, ',');) {
      const DType all[] = {DType::U8, DType::U16, DType::F32};
      const auto* d = std::find_if(std::begin(all), std::end(all), [&](DType x) { return t == dtype_name(x); });
      if (d == std::end(all)) throw UsageError("--dtypes: " + t + " is not u8, u16 or f32");
      o.dtypes.push_back(*d);
    }
  }
  for (const auto& t : tolerances_) {
    const auto eq = t.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? -1 : std::strtod(t.c_str() + eq + 1, &end);
    if (eq == std::string::npos || !end || *end || v < 0)
      throw UsageError("--tolerance " + t + ": expected STAGE=VALUE with VALUE >= 0");
    const std::string stage = t.substr(0, eq);
    if (!find_stage_type(stage)) throw UsageError("--tolerance " + t + ": unknown stage \"" + stage + "\"");
    o.tolerance[stage] = v;
  }
  if (!report_.empty()) check_output_file(report_, "--report", o.input);
  if (!html_.empty()) check_output_file(html_, "--html", o.input);
  const Pipeline pipeline = Pipeline::load_file(pipeline_);
  std::vector<VerifyDevice> devices = open_verify_devices(verify_devices_, require_gpu_, o.threads);
  const VerifyReport report = verify(pipeline, devices, o);
  std::cout << verify_table(report) << std::flush;
  auto write = [](const std::string& path, const std::string& text) {
    try {
      write_file_atomic(path, text.data(), text.size());
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
  };
  if (!report_.empty()) write(report_, report.to_json(pipeline.document()).dump(2) + "\n");
  if (!html_.empty()) write(html_, verify_html(report));
  return report.exit_code();
}

}  // namespace aug::app
