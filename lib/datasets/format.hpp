// Label files: a format reads each input's labels into the model of lib/labels/labels.hpp and
// writes each output's (YOLO, Pascal VOC, COCO; docs/labels.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/labels/labels.hpp"

namespace aug::labels {

struct FormatOptions {
  std::uint32_t copies = 1;  // outputs per input (--copies); 0: it varies (--balance)
  // YOLO pose rows: keypoints per object and values per keypoint (2: x y, 3: x y v), as
  // Ultralytics' kpt_shape; 0 keypoints: rows are boxes (5 values) or segments (1 + 2n).
  int keypoints = 0, keypoint_dims = 3;
  // The run's input folder (or file): where YOLO looks for the dataset's data.yaml. Empty: nowhere,
  // and no data.yaml is written.
  std::filesystem::path input;
  // YOLO-OBB rows (class x1 y1 ... x4 y4): oriented boxes.
  bool oriented = false;
};

// The class names a dataset declares (YOLO's data.yaml, COCO's categories) and where.
struct ClassNames {
  std::string where;  // "ds/data.yaml", "instances.json's categories"
  std::map<std::int64_t, std::string> names;
};

// A label format for one run: where each input's labels are, how they are read, where each
// output's labels go and how they are written. Readers and writers are called from worker
// threads at once: implementations are thread-safe.
class Format {
 public:
  virtual ~Format() = default;
  virtual std::string name() const = 0;  // "yolo", "coco", "voc"

  // The labels of the input image `image` (its relative path `rel` under the input root) of
  // size width x height. A missing label file is an image without objects. A malformed one
  // throws InputError naming the file and, where there is one, the line.
  virtual ImageLabels read(const std::filesystem::path& image, const std::string& rel, int width,
                           int height) const = 0;

  // Where the labels of input `image` (`rel` under the input root) would come from, and whether they
  // are there: the label file the reader looks at (YOLO, VOC), or the run's file and the input's name
  // (COCO), so that a run can say, before it writes anything, when most inputs have none.
  struct Source {
    std::string where;   // "ds/labels/a.txt", or "instances.json (an image whose file_name is a.jpg ...)"
    bool found = false;
  };
  virtual Source source(const std::filesystem::path& image, const std::string& rel) const = 0;
  // The entries of a run-wide label file that match none of the inputs `rels` (COCO's images, by
  // file_name), in the file's order; per-image formats have none.
  virtual std::vector<std::string> unmatched(const std::vector<std::string>& /*rels*/) const { return {}; }
  // The names the dataset declares for its class ids, when it declares them (VOC names objects
  // by their names, and has none to check).
  virtual std::optional<ClassNames> class_names() const { return std::nullopt; }

  // The label file an output image `output_image` (relative path `out_rel` under `output_root`)
  // gets, written atomically; empty for formats that write one file for the run (COCO).
  virtual std::filesystem::path output_path(const std::filesystem::path& output_root,
                                            const std::string& out_rel) const = 0;
  // Writes (or, for COCO, records) the labels of one output image. Throws InputError on failure.
  virtual void write(const std::filesystem::path& output_root, const std::string& out_rel,
                     const ImageLabels& labels) = 0;
  // After the run (also an interrupted one): writes what is written once per run (COCO's JSON,
  // YOLO's data.yaml).
  virtual void finish(const std::filesystem::path& output_root) = 0;
};

// Where a per-image label file of output `out_rel` goes: `rename` (a format's image-path to
// label-path rule, e.g. images/ -> labels/) applied to the output folder's own name and out_rel,
// never to the folders above the output folder (-o aug/images writes aug/labels/...).
std::filesystem::path output_label_path(const std::filesystem::path& output_root, const std::string& out_rel,
                                        std::filesystem::path (*rename)(const std::filesystem::path&));

// --labels yolo | yolo-obb | dota | voc | coco=FILE. Throws UsageError for another value or an
// unreadable COCO file.
std::unique_ptr<Format> make_format(const std::string& spec, const FormatOptions& options);

std::unique_ptr<Format> make_yolo_format(const FormatOptions& options);
std::unique_ptr<Format> make_voc_format(const FormatOptions& options);
std::unique_ptr<Format> make_dota_format(const FormatOptions& options);
std::unique_ptr<Format> make_coco_format(const std::filesystem::path& file, const FormatOptions& options);

}  // namespace aug::labels
