// Ultralytics' dataset file (data.yaml): the class names and where the splits are. A YOLO run reads
// the input's, to name class ids that are not among its names, and writes one for its output, with
// the names and the other splits carried over (docs/labels.md).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace aug::labels {

struct YoloDataset {
  std::filesystem::path file;        // the file read
  std::filesystem::path root;        // its `path`, relative to the file's folder; else that folder
  std::map<int, std::string> names;  // class id -> name (a list or a mapping in the file)
  nlohmann::json doc;                // the whole document
};

// Reads a dataset file. Throws InputError naming the file when it is not YAML or its names are
// neither a list nor a mapping of ids to names.
YoloDataset read_yolo_dataset(const std::filesystem::path& file);

// The dataset file of the images under `input`: data.yaml or dataset.yaml in `input` or in one of
// the three folders above it, the nearest first.
std::optional<YoloDataset> find_yolo_dataset(const std::filesystem::path& input);

// Where the output's dataset file goes: beside the last folder named `images` in `output` (as
// labels/ goes beside it), else in `output` itself.
std::filesystem::path yolo_dataset_path(const std::filesystem::path& output);

// Writes the output's data.yaml (atomically), without `path` (Ultralytics then takes the file's
// folder as the dataset's root, so that it can be moved); the split that `input` is in the
// input's file (else train and val) becomes `output`; the other splits point where the input's file
// says, as absolute paths; names and the other keys (kpt_shape, flip_idx, ...) carried over. Without
// an input file, the names are those of an existing output file, else the ids `seen` (0 to the
// largest) named by their number. An existing output file keeps the splits this run does not write,
// so that runs over train and val into one dataset give one file. Returns the path written.
std::filesystem::path write_yolo_dataset(const std::filesystem::path& output, const std::filesystem::path& input,
                                         const std::optional<YoloDataset>& in, const std::set<int>& seen);

}  // namespace aug::labels
