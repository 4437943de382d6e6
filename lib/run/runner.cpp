#include "lib/run/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "lib/core/log.hpp"
#include "lib/io/jpeg_coefficients.hpp"
#include "lib/datasets/apply.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/masks.hpp"
#include "lib/io/files.hpp"
#include "lib/run/interrupt.hpp"
#include "lib/run/jobs.hpp"
#include "lib/run/manifest.hpp"
#include "lib/run/partners.hpp"
#include "lib/run/progress.hpp"

namespace aug {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Exit RunSummary::exit_code() const {
  if (interrupted) return Exit::interrupted;
  if (!device_failure.empty()) return Exit::usage;  // a device error, as when the device cannot be opened
  if (failed_outputs > 0 || failed_inputs > 0) return Exit::file_errors;
  return Exit::ok;
}

std::uint64_t effective_seed(const Pipeline& pipeline, const std::optional<std::uint64_t>& override_seed) {
  if (override_seed) return *override_seed;
  return pipeline.seed().value_or(0);
}

namespace {

struct Job {
  std::size_t input = 0;
  std::uint32_t copy = 0;
  std::string out_rel;
  Format format = Format::Jpeg;
  bool exists = false;  // --resume found it complete
};

fs::path masks_folder(const RunOptions& o);

// Every place the run writes, checked before the first input is read; a refusal creates nothing.
void check_locations(const RunOptions& o) {
  std::error_code ec;
  if (fs::is_directory(o.input, ec) && path_within(o.output, o.input))
    throw UsageError("the output folder " + o.output.string() + " is inside the input folder " + o.input.string() +
                     "; its outputs would become inputs of the next run. Pick an output folder elsewhere");
  if (fs::exists(o.output, ec)) {
    if (!fs::is_directory(o.output, ec))
      throw UsageError("the output " + o.output.string() + " exists and is not a folder");
    if (!o.overwrite && !o.resume && !o.dry_run && !fs::is_empty(o.output, ec))
      throw UsageError("the output folder " + o.output.string() +
                       " is not empty; pass --overwrite to replace its files or --resume to keep those done");
  }
  check_output_folder(o.output, "-o", o.input);
  if (o.manifest) check_output_file(*o.manifest, "--manifest", o.input);
  if (o.masks) {
    const fs::path out = masks_folder(o);
    check_output_folder(out, o.masks_output ? "--masks-output" : "the masks' output folder", o.input);
    if (path_within(out, *o.masks) || path_within(*o.masks, out))
      throw UsageError("the masks' output folder " + out.string() + " and the input masks " + o.masks->string() +
                       " overlap: the outputs would replace or be read as input masks; pass --masks-output");
  }
}

// `copies`: each input's copies (--balance), else --copies for every input.
std::vector<Job> plan_jobs(const std::vector<InputFile>& inputs, const std::vector<std::uint32_t>& copies,
                           const RunOptions& o) {
  // With --balance, inputs get different copies: names carry the copy whatever the count.
  const bool several = o.copies > 1 || o.balance.on();
  const std::string default_name = several ? "{stem}_{copy}{ext}" : "{stem}{ext}";
  const NameTemplate name = NameTemplate::parse(o.name.empty() ? default_name : o.name);
  const std::uint32_t most = copies.empty() ? 0 : *std::max_element(copies.begin(), copies.end());
  if (most > 1 && !name.uses_copy())
    throw UsageError("--name \"" + name.text() + "\" has no {copy}: the " + std::to_string(most) +
                     " copies of an image would overwrite each other");
  std::optional<Format> format;
  if (o.format != "keep") format = format_for_extension("." + o.format);

  // When the input folder is inside the output folder, no output may land on an input.
  std::error_code ec;
  std::set<std::string> input_paths;
  if (path_within(o.input, o.output))
    for (const auto& f : inputs) input_paths.insert(fs::weakly_canonical(f.path(), ec).string());

  std::vector<Job> jobs;
  std::size_t outputs = 0;
  for (const std::uint32_t n : copies) outputs += n;
  jobs.reserve(outputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const fs::path rel(inputs[i].rel);
    const std::string ext = format ? format_extension(*format) : rel.extension().string();
    for (std::uint32_t c = 0; c < copies[i]; ++c) {
      std::string out_rel = (rel.parent_path() / name.render(rel.stem().string(), ext, c)).generic_string();
      const fs::path out = o.output / out_rel;
      if (!input_paths.empty() && input_paths.count(fs::weakly_canonical(out, ec).string()))
        throw UsageError("the output " + out.string() + " would overwrite an input");
      // The file's extension names its format; with --format they must agree.
      const std::optional<Format> by_name = format_for_extension(fs::path(out_rel).extension().string());
      if (!by_name)
        throw UsageError("--name \"" + name.text() + "\" names the output " + out_rel +
                         ", which has no image extension (.jpg .png .webp .tif .bmp)");
      if (format && *by_name != *format)
        throw UsageError("--name \"" + name.text() + "\" names the output " + out_rel + ", but --format is " + o.format);
      jobs.push_back(Job{i, c, std::move(out_rel), *by_name, false});
    }
  }
  // No two outputs on one file: sorted by name (then by input), equal names are neighbours. Indices
  // rather than a map of names: 4 bytes an output.
  std::vector<std::uint32_t> order(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) order[j] = static_cast<std::uint32_t>(j);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int c = jobs[a].out_rel.compare(jobs[b].out_rel);
    return c != 0 ? c < 0 : a < b;
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Job &a = jobs[order[k - 1]], &b = jobs[order[k]];
    if (a.out_rel == b.out_rel)
      throw UsageError("inputs " + inputs[a.input].rel + " and " + inputs[b.input].rel + " would both be written to " +
                       a.out_rel + "; change --name or --format");
  }
  return jobs;
}

fs::path masks_folder(const RunOptions& o) { return labels::masks_output_folder(o.output, o.masks_output); }

fs::path mask_output(const RunOptions& o, const std::string& out_rel) {
  return labels::mask_output_file(masks_folder(o), out_rel, o.mask_suffix);
}

// A palette mask's fill needs a colour: the palette grows to it (black; 255, the usual "ignore",
// in Pascal VOC's void colour).
void cover_fill(labels::Palette& palette, double fill) {
  const auto index = static_cast<std::size_t>(fill);
  if (index < palette.colors.size() || index > 255) return;
  palette.colors.resize(index + 1, {0, 0, 0});
  if (index == 255) palette.colors[255] = {224, 224, 192};
}

// Label files and masks of different outputs must not land on one another.
void check_label_outputs(const std::vector<Job>& jobs, const RunOptions& o, const labels::Format* format) {
  std::map<fs::path, const Job*> owner;
  for (const auto& job : jobs) {
    std::vector<fs::path> paths;
    if (format) paths.push_back(format->output_path(o.output, job.out_rel));
    if (o.masks) paths.push_back(mask_output(o, job.out_rel));
    for (const auto& p : paths) {
      if (p.empty()) continue;
      const auto [it, fresh] = owner.emplace(p.lexically_normal(), &job);
      if (!fresh)
        throw UsageError("outputs " + it->second->out_rel + " and " + job.out_rel + " would both write " + p.string() +
                         "; change --name");
    }
  }
}

// The streaming part of a run.
class Stream {
 public:
  Stream(const Pipeline& pipeline, const RunOptions& o, const std::vector<InputFile>& inputs, std::vector<Job>& jobs,
         const DeviceSet& devices, ManifestWriter* manifest, std::uint64_t seed, int workers, labels::Format* format,
         const labels::MaskFolder* masks, const PartnerSource* partners)
      : pipeline_(pipeline),
        format_(format),
        masks_(masks),
        partners_(partners),
        o_(o),
        inputs_(inputs),
        jobs_(jobs),
        devices_(devices),
        images_on_(devices.size(), 0),
        manifest_(manifest),
        seed_(seed),
        workers_(workers),
        cap_(static_cast<std::size_t>(workers)) {
    // plan_jobs lists each input's jobs together, in input order.
    first_job_.assign(inputs.size() + 1, jobs.size());
    for (std::size_t j = jobs.size(); j-- > 0;) first_job_[jobs[j].input] = j;
    for (std::size_t i = inputs.size(); i-- > 0;) first_job_[i] = std::min(first_job_[i], first_job_[i + 1]);
    std::size_t last = inputs.size();
    admission_.reserve(inputs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (jobs[j].exists) {
        record_existing(j);
        continue;
      }
      if (jobs[j].input != last) admission_.push_back(last = jobs[j].input);
      ++todo_;
    }
    if (format_) names_ = format_->class_names();
    // With one device, inputs are decoded where it uploads them from (a GPU's pinned staging).
    if (devices.size() == 1) allocate_ = devices.backend(0).input_allocator();
    if (shrink_ && (format_ || masks_)) {
      // Label files and masks are in the full image's pixels: those runs decode at full size.
      spdlog::warn("the pipeline's \"decode\": {\"shrink\": true} is off for this run: labels and masks need "
                   "the full-size decode");
      shrink_ = false;
    }
  }

  // --balance: each input's copies and repeat factor, recorded in its outputs' manifest lines.
  void record_balance(std::vector<std::uint32_t> copies, std::vector<double> repeat) {
    copies_ = std::move(copies);
    repeat_ = std::move(repeat);
  }

  // Class ids of the objects read that the dataset's names do not have, with their counts.
  const std::map<std::int64_t, std::size_t>& unknown_classes() const { return unknown_classes_; }
  const std::optional<labels::ClassNames>& class_names() const { return names_; }

  void run(RunSummary& summary) {
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int w = 0; w < workers_; ++w) threads.emplace_back([this, w] { work(w); });
    auto last_line = start;
    {
      std::unique_lock lk(m_);
      while (exited_ < workers_) {
        if (!stop_ && interrupted()) {
          stop_ = true;
          interrupted_ = true;
          spdlog::warn("interrupted: finishing the images in flight (Ctrl-C again to quit at once)");
          cv_.notify_all();
        }
        cv_done_.wait_for(lk, std::chrono::milliseconds(200));
        const auto now = Clock::now();
        const Progress p{written_ + failed_jobs_, todo_, failed_jobs_, std::chrono::duration<double>(now - start).count()};
        if (o_.progress_every > 0) {
          if (std::chrono::duration<double>(now - last_line).count() >= o_.progress_every) {
            last_line = now;
            lk.unlock();
            spdlog::info("{}", progress_line(p, 0).substr(9));  // "augment: " is the logger's own prefix
            lk.lock();
          }
        } else if (o_.progress) {
          const std::string line = progress_line(p, terminal_columns());
          lk.unlock();
          set_status_line(line);
          lk.lock();
        }
      }
    }
    for (auto& t : threads) t.join();
    if (o_.progress && o_.progress_every <= 0) set_status_line("");
    summary.outputs = written_;
    summary.failed_outputs = failed_jobs_;
    summary.failed_inputs = failed_inputs_.size();
    summary.interrupted = interrupted_;
    summary.stopped_early = stopped_early_ && device_failure_.empty();
    summary.device_failure = device_failure_;
    summary.objects_kept = objects_kept_;
    summary.objects_dropped = objects_dropped_;
    summary.jpeg_on_cpu = jpeg_on_cpu_;
    for (std::size_t i = 0; i < devices_.size(); ++i)
      summary.devices.push_back({devices_.backend(i).name(), images_on_[i], devices_.backend(i).busy_seconds()});
  }

 private:
  struct Decoded {
    std::size_t input;
    CodedImage image;  // --device-jpeg: a JPEG input as its coefficients
    std::optional<labels::ImageLabels> labels;
    std::optional<labels::Mask> mask;
    int shrink = 1;  // decoded at 1/shrink of its size (the pipeline's "decode": {"shrink": true})
  };
  struct Rendered {
    std::size_t job;
    CodedImage image;  // --device-jpeg: a JPEG output as its coefficients
    std::optional<labels::ImageLabels> labels;
    std::optional<labels::Mask> mask;
    labels::LabelCounts counts;
  };
  enum class Kind { Encode, Augment, Decode, None };

  bool can_admit() const { return !stop_ && next_ < admission_.size() && decoded_.size() + decoding_ < cap_; }
  bool finished_locked() const {
    return (stop_ || next_ == admission_.size()) && decoded_.empty() && rendered_.empty() && busy_ == 0;
  }

  void work(int worker) {
    for (;;) {
      Kind kind = Kind::None;
      Decoded decoded;
      Rendered rendered;
      std::size_t input = 0;
      {
        std::unique_lock lk(m_);
        cv_.wait(lk, [&] { return !rendered_.empty() || !decoded_.empty() || can_admit() || finished_locked(); });
        if (!rendered_.empty()) {
          kind = Kind::Encode;
          rendered = std::move(rendered_.front());
          rendered_.pop_front();
        } else if (!decoded_.empty()) {
          kind = Kind::Augment;
          decoded = std::move(decoded_.front());
          decoded_.pop_front();
        } else if (can_admit()) {
          kind = Kind::Decode;
          input = admission_[next_++];
          ++decoding_;
        } else {
          ++exited_;
          cv_done_.notify_all();
          cv_.notify_all();
          return;
        }
        ++busy_;
      }
      switch (kind) {
        case Kind::Encode: encode(rendered); break;
        case Kind::Augment: augment(decoded, worker); break;
        case Kind::Decode: decode(input); break;
        case Kind::None: break;
      }
      {
        std::lock_guard lk(m_);
        --busy_;
        if (kind == Kind::Decode) --decoding_;
      }
      // One waiting worker is enough for what this task made possible (the item it queued, the place
      // it freed); this worker takes the next task itself. The main thread wakes on its own to show
      // progress, and when a worker exits: waking it after every task cost a thread switch per task.
      cv_.notify_one();
    }
  }

  void decode(std::size_t input) {
    try {
      const std::vector<std::uint8_t> bytes = read_file(inputs_[input].path());
      Decoded d{input, {}, {}, {}};
      const InputFile& in = inputs_[input];
      std::vector<std::uint32_t> copies;
      for (std::size_t j : todo_of(input)) copies.push_back(jobs_[j].copy);
      // Shrink-on-load when asked for, and only the pixels the copies read (a crop's window).
      DecodeOptions options = pipeline_.decode_options(o_.decode, seed_, in.rel, copies, shrink_, true);
      options.allocate = allocate_;
      if (o_.device_jpeg) {
        std::string why;
        DecodeOptions coefficients = o_.decode;
        coefficients.allocate = allocate_;
        if (auto c = read_jpeg_for_device(bytes.data(), bytes.size(), coefficients, &why)) {
          d.image.jpeg = std::make_shared<const JpegCoefficients>(std::move(*c));
          // Shrink-on-load decodes smaller on the CPU, so that every device starts from the same pixels.
          if (options.shrink && options.shrink(d.image.shape()) > 1) {
            d.image.jpeg.reset();
            jpeg_on_cpu(in.rel + ": decoded on the CPU (shrink-on-load)");
          }
        } else if (!why.empty()) {
          jpeg_on_cpu(in.rel + ": decoded on the CPU (" + why + ")");
        }
      }
      if (!d.image.jpeg) {
        ImageInfo info;
        d.image.pixels = decode_image(bytes.data(), bytes.size(), options, &info);
        d.shrink = info.shrink;
      }
      if (format_) d.labels = format_->read(in.path(), in.rel, d.image.shape().width, d.image.shape().height);
      if (masks_) {
        const auto file = masks_->find(in.rel);
        if (!file) throw InputError("its mask " + masks_->path_for(in.rel).string() + " is missing");
        d.mask = labels::read_mask(*file);
      }
      std::lock_guard lk(m_);
      if (d.labels && names_)
        for (const labels::Object& obj : d.labels->objects)
          if (!names_->names.count(obj.category)) ++unknown_classes_[obj.category];
      decoded_.push_back(std::move(d));
    } catch (const std::exception& e) {
      fail_input(input, e.what());
    }
  }

  void augment(Decoded& d, int worker) {
    // Each worker augments on one device of the set, as that device's worker.
    Backend& backend = devices_.backend_of(worker);
    const int device_worker = devices_.local_worker(worker);
    for (std::size_t j : todo_of(d.input)) {
      const Job& job = jobs_[j];
      Rendered r{j, {}, {}, {}, {}};
      const int shrink = d.shrink;
      try {
        const Plan plan = pipeline_.plan(seed_, inputs_[job.input].rel, job.copy, d.image.shape(),
                                         DrawInputs{d.labels ? &*d.labels : nullptr, d.mask ? &d.mask->image : nullptr,
                                                    partners_, inputs_[job.input].rel});
        const int jpeg_quality = job.format == Format::Jpeg ? o_.quality : 0;
        if (o_.device_jpeg) r.image = backend.run_coded(plan, d.image, jpeg_quality, device_worker);
        else r.image.pixels = backend.run(plan, d.image.pixels, device_worker);
        const labels::LabelRules& rules = pipeline_.label_rules();
        if (d.labels) {
          r.labels = *d.labels;
          r.counts = labels::move_plan_labels(plan, *r.labels, rules, backend, device_worker);
        }
        if (d.mask) {
          r.mask = labels::Mask{labels::move_mask(plan, d.mask->image, rules.mask_fill, backend, device_worker), d.mask->palette};
          if (r.mask->palette) cover_fill(*r.mask->palette, rules.mask_fill);
        }
        plans_record(j, plan, shrink);
      } catch (const DeviceError& e) {
        // The device itself failed, not this image (with several workers on one device, the
        // image whose sync met a fault need not be the one that caused it): nothing more runs,
        // and no image is blamed. The run ends with the device error.
        {
          std::lock_guard lk(m_);
          if (device_failure_.empty()) device_failure_ = e.what();
        }
        stop_all(std::string("the device failed; stopping (the outputs not written yet are not failed images): ") +
                 e.what());
        continue;
      } catch (const std::exception& e) {
        fail_job(j, e.what());
        continue;
      }
      std::unique_lock lk(m_);
      ++images_on_[devices_.index_of(worker)];
      if (rendered_.size() < cap_) {
        rendered_.push_back(std::move(r));
        lk.unlock();
        cv_.notify_one();
      } else {
        lk.unlock();
        encode(r);  // the queue is full: write it now rather than hold more images
      }
    }
  }

  void encode(Rendered& r) {
    const Job& job = jobs_[r.job];
    const fs::path out = o_.output / job.out_rel;
    try {
      Encoded enc;
      if (r.image.jpeg) {
        enc.bytes = write_jpeg_coefficients(*r.image.jpeg, o_.quality);
      } else {
        if (o_.device_jpeg && job.format == Format::Jpeg)
          jpeg_on_cpu(job.out_rel + ": encoded on the CPU (not 8-bit gray or RGB)");
        enc = encode_image(r.image.pixels, job.format, EncodeOptions{o_.quality});
      }
      if (!enc.conversion.empty()) warn_once(std::string(format_name(job.format)) + " output: " + enc.conversion);
      // Labels and mask first: an output image that exists (what --resume looks for) has them.
      if (r.labels) format_->write(o_.output, job.out_rel, *r.labels);
      if (r.mask) {
        const std::vector<std::uint8_t> png = labels::encode_mask_png(*r.mask);
        const fs::path path = mask_output(o_, job.out_rel);
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        write_file_atomic(path, png.data(), png.size());
      }
      write_file_atomic(out, enc.bytes.data(), enc.bytes.size());
    } catch (const std::exception& e) {
      fail_job(r.job, e.what());
      return;
    }
    if (manifest_) {
      nlohmann::json entry = take_record(r.job);
      if (r.labels) entry["labels"] = r.counts.to_json();
      manifest_->add(r.job, entry);
    }
    std::lock_guard lk(m_);
    ++written_;
    objects_kept_ += r.counts.kept;
    objects_dropped_ += r.counts.dropped();
  }

  // The manifest line of a job: kept from its plan until the output is written.
  void plans_record(std::size_t j, const Plan& plan, int shrink) {
    if (!manifest_) return;
    const Job& job = jobs_[j];
    nlohmann::json entry{{"input", inputs_[job.input].rel},
                         {"output", job.out_rel},
                         {"copy", job.copy},
                         {"seed", seed_},
                         {"size", {plan.out.width, plan.out.height}}};
    // With shrink-on-load, the scale the input was decoded at and the size that gave.
    if (pipeline_.decode_rules().shrink)
      entry["decode"] = {{"scale", "1/" + std::to_string(shrink)}, {"size", {plan.in.width, plan.in.height}}};
    entry["stages"] = plan.record;
    if (!repeat_.empty()) entry["balance"] = {{"copies", copies_[job.input]}, {"repeat", repeat_[job.input]}};
    std::lock_guard lk(m_);
    records_[j] = std::move(entry);
  }

  nlohmann::json take_record(std::size_t j) {
    std::lock_guard lk(m_);
    auto it = records_.find(j);
    nlohmann::json entry = std::move(it->second);
    records_.erase(it);
    return entry;
  }

  void record_existing(std::size_t j) {
    if (!manifest_) return;
    const Job& job = jobs_[j];
    manifest_->add(j, {{"input", inputs_[job.input].rel}, {"output", job.out_rel}, {"copy", job.copy},
                       {"seed", seed_}, {"status", "exists"}});
  }

  // Input i's jobs that are still to be made (not kept by --resume).
  std::vector<std::size_t> todo_of(std::size_t input) const {
    std::vector<std::size_t> todo;
    for (std::size_t j = first_job_[input]; j < first_job_[input + 1]; ++j)
      if (!jobs_[j].exists) todo.push_back(j);
    return todo;
  }

  void fail_input(std::size_t input, const std::string& why) {
    spdlog::error("{}: {}", inputs_[input].path(), why);
    const std::vector<std::size_t> todo = todo_of(input);
    for (std::size_t j : todo) record_failure(j, why);
    note_failure(input, todo.size());
  }

  void fail_job(std::size_t j, const std::string& why) {
    const Job& job = jobs_[j];
    spdlog::error("{} (copy {} -> {}): {}", inputs_[job.input].path(), job.copy, job.out_rel, why);
    record_failure(j, why);
    note_failure(job.input, 1);
  }

  void record_failure(std::size_t j, const std::string& why) {
    if (!manifest_) return;
    const Job& job = jobs_[j];
    {
      std::lock_guard lk(m_);
      records_.erase(j);
    }
    manifest_->add(j, {{"input", inputs_[job.input].rel}, {"output", job.out_rel}, {"copy", job.copy},
                       {"seed", seed_}, {"error", why}});
  }

  void note_failure(std::size_t input, std::size_t jobs) {
    std::lock_guard lk(m_);
    failed_jobs_ += jobs;
    failed_inputs_.insert(input);
    if (o_.max_errors && failed_inputs_.size() >= o_.max_errors && !stop_) {
      stop_ = true;
      stopped_early_ = true;
      spdlog::error("stopping after {} failed input{} (--max-errors {}); finishing the images in flight",
                    failed_inputs_.size(), failed_inputs_.size() == 1 ? "" : "s", o_.max_errors);
    }
  }

  void stop_all(const std::string& why) {
    {
      std::lock_guard lk(m_);
      if (stop_) return;
      stop_ = true;
      stopped_early_ = true;
      spdlog::error("{}", why);
    }
    cv_.notify_all();
    cv_done_.notify_all();
  }

  // --device-jpeg: a JPEG file the CPU codec decodes or encodes instead (counted in the summary).
  void jpeg_on_cpu(const std::string& what) {
    spdlog::debug("--device-jpeg: {}", what);
    std::lock_guard lk(m_);
    ++jpeg_on_cpu_;
  }

  void warn_once(const std::string& what) {
    {
      std::lock_guard lk(m_);
      if (!warned_.insert(what).second) return;
    }
    spdlog::warn("{} (said once for the run)", what);
  }

  const Pipeline& pipeline_;
  labels::Format* format_;
  const labels::MaskFolder* masks_;
  const PartnerSource* partners_;  // stages that read other images draw them from here
  std::optional<labels::ClassNames> names_;                // the dataset's class names, when it declares them
  std::map<std::int64_t, std::size_t> unknown_classes_;    // guarded by m_
  bool shrink_ = pipeline_.decode_rules().shrink;  // shrink-on-load for this run
  const RunOptions& o_;
  const std::vector<InputFile>& inputs_;
  std::vector<Job>& jobs_;
  const DeviceSet& devices_;
  ImageAllocator allocate_;             // where inputs are decoded (the device's, or plain memory)
  std::vector<std::size_t> images_on_;  // outputs augmented per device (under m_)
  ManifestWriter* manifest_;
  std::uint64_t seed_;
  std::vector<std::uint32_t> copies_;  // --balance: per input
  std::vector<double> repeat_;
  int workers_;
  std::size_t cap_;

  std::vector<std::size_t> first_job_;  // input i's jobs are [first_job_[i], first_job_[i + 1])
  std::vector<std::size_t> admission_;  // inputs with work to do, in order
  std::size_t todo_ = 0;

  std::mutex m_;
  std::condition_variable cv_, cv_done_;
  std::size_t next_ = 0, decoding_ = 0, busy_ = 0;
  int exited_ = 0;
  std::deque<Decoded> decoded_;
  std::deque<Rendered> rendered_;
  std::map<std::size_t, nlohmann::json> records_;
  bool stop_ = false, interrupted_ = false, stopped_early_ = false;
  std::string device_failure_;
  std::size_t written_ = 0, failed_jobs_ = 0, objects_kept_ = 0, objects_dropped_ = 0;
  std::size_t jpeg_on_cpu_ = 0;  // --device-jpeg: JPEG files decoded or encoded by the CPU codec
  std::set<std::size_t> failed_inputs_;
  std::set<std::string> warned_;
};

// Before anything is written: how many inputs have no labels where the format looks for them, and
// which entries of a run-wide label file match no input; a warning when none or most inputs have
// labels, or when entries match nothing (a labels folder elsewhere, COCO file_names of another
// layout). Inputs without labels are still written, with no objects (background images).
// `whole_run`: the inputs are all of them (not one shard's), so unmatched entries mean something.
void check_label_sources(const labels::Format& format, const std::vector<InputFile>& inputs, bool whole_run,
                         RunSummary& summary) {
  std::string first_missing, first_input;
  std::vector<std::string> rels;
  rels.reserve(inputs.size());
  for (const InputFile& in : inputs) {
    rels.push_back(in.rel);
    const labels::Format::Source s = format.source(in.path(), in.rel);
    if (s.found) continue;
    if (summary.inputs_without_labels++ == 0) {
      first_missing = s.where;
      first_input = in.rel;
    }
  }
  if (whole_run) summary.unmatched_labels = format.unmatched(rels);
  const std::size_t n = inputs.size(), missing = summary.inputs_without_labels;
  if (n > 0 && missing == n)
    spdlog::warn("labels ({}): none of the {} input{} has labels; for {} they would be in {}. Every output is written "
                 "with no objects",
                 format.name(), n, n == 1 ? "" : "s", first_input, first_missing);
  else if (missing * 2 > n)
    spdlog::warn("labels ({}): {} of the {} inputs have no labels (the first: {}, looked for in {}); they are written "
                 "with no objects",
                 format.name(), missing, n, first_input, first_missing);
  if (const auto& u = summary.unmatched_labels; !u.empty()) {
    std::string names;
    for (std::size_t i = 0; i < u.size() && i < 3; ++i) names += (i ? ", " : "") + u[i];
    spdlog::warn("labels ({}): {} of its images match no input ({}{})", format.name(), u.size(), names,
                 u.size() > 3 ? ", ..." : "");
  }
}

// The plan of a dry run: on which device the images go, and on which backend each stage runs.
void list_plan(const Pipeline& pipeline, const DeviceSet& devices, const RunOptions& o, std::ostream& out) {
  out << "plan: " << pipeline.source() << " on " << devices.names()
      << (devices.size() > 1 ? " (the images shared between them)" : "") << "\n";
  std::function<void(const Node&)> visit = [&](const Node& n) {
    if (n.kind == Node::Kind::Stage)
      out << "  " << n.pointer << " " << n.name << ": " << (n.spec->cuda ? devices.names() : std::string("cpu")) << "\n";
    for (const Node& c : n.children) visit(c);
  };
  visit(pipeline.root());
  if (o.device_jpeg) out << "  JPEG decoding and encoding: entropy coding on the CPU, the rest on " << devices.names() << "\n";
}

}  // namespace

RunSummary run(const Pipeline& pipeline, const RunOptions& o) {
  const auto start = Clock::now();
  RunSummary summary;
  summary.seed = effective_seed(pipeline, o.seed);
  if (o.copies < 1) throw UsageError("--copies must be at least 1");
  if (o.format != "keep" && !format_for_extension("." + o.format))
    throw UsageError("--format " + o.format + ": expected keep, jpg, png, webp, tiff or bmp");
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count)
    throw UsageError("--shard K/N needs 0 <= K < N");

  // Stages that read other images draw them from the whole list, and --balance plans over it,
  // whatever the shard; otherwise only this shard's inputs are kept from the listing.
  const bool whole_list = pipeline.reads_partners() || o.balance.on();
  std::vector<InputFile> inputs =
      whole_list || o.shard_count == 1
          ? list_inputs(o.input)
          : list_inputs(o.input, [&](const std::string& rel) { return in_shard(rel, o.shard_index, o.shard_count); });
  const std::vector<InputFile> all_inputs = pipeline.reads_partners() ? inputs : std::vector<InputFile>{};
  check_locations(o);
  if (o.balance.on() && o.labels.empty())
    throw UsageError(std::string(o.balance.kind == BalanceSpec::Kind::repeat_factor ? "--balance" : "--copies-per-class") +
                     " needs the labels: pass --labels (yolo, voc, coco=FILE, ...)");
  const labels::LabelRules& rules = pipeline.label_rules();
  std::unique_ptr<labels::Format> format;
  // With --balance the inputs' copies differ (copies 0: COCO renumbers the image ids).
  if (!o.labels.empty())
    format = labels::make_format(o.labels, {o.balance.on() ? 0u : o.copies, rules.keypoints, rules.keypoint_dims, o.input});

  // Every input's copies, planned over the whole input list so that every shard plans the same.
  std::vector<std::uint32_t> copies(inputs.size(), o.copies);
  std::vector<double> repeat;
  if (o.balance.on()) {
    summary.balance = plan_balance(o.balance, inputs, *format, o.copies, summary.seed);
    copies = summary.balance->copies;
    repeat = summary.balance->repeat;
    for (const std::string& line : summary.balance->table()) {
      if (o.dry_run && o.listing) *o.listing << line << "\n";
      else spdlog::info("{}", line);
    }
  }
  if (whole_list && o.shard_count > 1) {  // otherwise the listing kept only this shard's inputs
    std::size_t kept = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!in_shard(inputs[i].rel, o.shard_index, o.shard_count)) continue;
      if (kept != i) inputs[kept] = std::move(inputs[i]);
      copies[kept] = copies[i];
      if (!repeat.empty()) repeat[kept] = repeat[i];
      ++kept;
    }
    inputs.resize(kept);
    copies.resize(kept);
    if (!repeat.empty()) repeat.resize(kept);
  }
  summary.inputs = inputs.size();
  std::vector<Job> jobs = plan_jobs(inputs, copies, o);
  std::optional<labels::MaskFolder> masks;
  if (o.masks) masks.emplace(*o.masks, o.mask_suffix);
  check_label_outputs(jobs, o, format.get());
  if (format) check_label_sources(*format, inputs, o.shard_count == 1, summary);

  // The devices, opened as the run opens them: a dry run fails where the run would.
  const std::vector<DeviceSpec> device_specs = expand_devices(o.devices);
  int workers = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (workers < static_cast<int>(device_specs.size())) {
    // Every device needs a worker of its own to get images.
    spdlog::info("{} worker threads for {} devices: using {}", workers, device_specs.size(), device_specs.size());
    workers = static_cast<int>(device_specs.size());
  }
  const DeviceSet devices(device_specs, workers);
  if (o.device_jpeg)  // after "auto" has chosen
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices.backend(i).name() == "cpu")
        throw UsageError("--device-jpeg needs a GPU device (--device cuda:N or cuda-emulated); on the CPU, JPEG files "
                         "are decoded and encoded on the CPU anyway");
  summary.device = devices.names();

  if (o.dry_run) {
    if (o.listing) list_plan(pipeline, devices, o, *o.listing);
    for (const auto& job : jobs) {
      const bool exists = o.resume && fs::exists(o.output / job.out_rel);
      if (!o.listing) continue;
      *o.listing << inputs[job.input].rel << " -> " << (o.output / job.out_rel).string()
                 << (exists ? "  (exists, kept)" : "") << "\n";
      if (format) {
        const fs::path lp = format->output_path(o.output, job.out_rel);
        *o.listing << "  labels -> " << (lp.empty() ? (o.output / fs::path(o.labels.substr(5)).filename()).string() : lp.string()) << "\n";
      }
      if (masks) *o.listing << "  mask -> " << mask_output(o, job.out_rel).string() << "\n";
    }
    summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary;
  }

  std::error_code ec;
  fs::create_directories(o.output, ec);
  if (ec) throw UsageError("cannot create the output folder " + o.output.string() + ": " + ec.message());
  if (o.overwrite || o.resume) {
    if (const std::size_t n = remove_stale_temps(o.output))
      spdlog::info("removed {} temporary file{} left by an interrupted run", n, n == 1 ? "" : "s");
  }
  {
    std::set<fs::path> folders;  // every output folder, made once before the workers start
    for (const auto& job : jobs) folders.insert((o.output / job.out_rel).parent_path());
    for (const auto& folder : folders) {
      fs::create_directories(folder, ec);
      if (ec) throw UsageError("cannot create the output folder " + folder.string() + ": " + ec.message());
    }
  }
  if (o.resume)
    for (auto& job : jobs) job.exists = fs::exists(o.output / job.out_rel, ec);
  for (const auto& job : jobs) summary.existing += job.exists ? 1 : 0;

  std::unique_ptr<ManifestWriter> manifest;
  if (o.manifest) manifest = std::make_unique<ManifestWriter>(*o.manifest);

  // A run that does not resume starts its run-wide label records (COCO's) afresh.
  if (format && !o.resume) fs::remove_all(o.output / ".augment-labels", ec);

  std::unique_ptr<PartnerCache> partners;
  if (pipeline.reads_partners())
    partners = std::make_unique<PartnerCache>(all_inputs, o.decode, format.get(), masks ? &*masks : nullptr,
                                              static_cast<std::size_t>(workers));
  Stream stream(pipeline, o, inputs, jobs, devices, manifest.get(), summary.seed, workers, format.get(),
                masks ? &*masks : nullptr, partners.get());
  if (!repeat.empty()) stream.record_balance(copies, repeat);
  stream.run(summary);
  summary.unknown_classes = stream.unknown_classes();
  if (const auto& u = summary.unknown_classes; !u.empty()) {
    std::string ids;
    std::size_t shown = 0;
    for (const auto& [id, count] : u)
      if (shown++ < 5) ids += (ids.empty() ? "" : ", ") + std::to_string(id) + " (" + std::to_string(count) + " object" + (count == 1 ? "" : "s") + ")";
    spdlog::warn("labels ({}): class id{} {}{} {} not among the {} names of {}", format->name(), u.size() == 1 ? "" : "s",
                 ids, u.size() > 5 ? ", ..." : "", u.size() == 1 ? "is" : "are", stream.class_names()->names.size(),
                 stream.class_names()->where);
  }
  if (format) format->finish(o.output);
  // Run-wide label records (COCO's fragments) are kept for a --resume while the run is incomplete,
  // and for the other shards of a job writing into the same folder.
  if (format && o.shard_count == 1 && !summary.interrupted && !summary.stopped_early && summary.failed_outputs == 0 &&
      summary.device_failure.empty())
    fs::remove_all(o.output / ".augment-labels", ec);
  for (const DeviceUse& d : summary.devices) summary.device_busy_seconds += d.busy_seconds;
  if (manifest) manifest->finish();
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

}  // namespace aug
