#include <string>

#include "lib/core/error.hpp"
#include "lib/datasets/format.hpp"

namespace aug::labels {

std::filesystem::path output_label_path(const std::filesystem::path& output_root, const std::string& out_rel,
                                        std::filesystem::path (*rename)(const std::filesystem::path&)) {
  const std::filesystem::path root = output_root.lexically_normal();
  const std::filesystem::path base = root.has_filename() ? root.filename() : root.parent_path().filename();
  const std::filesystem::path above = root.has_filename() ? root.parent_path() : root.parent_path().parent_path();
  return above / rename(base / std::filesystem::path(out_rel));
}

std::unique_ptr<Format> make_format(const std::string& spec, const FormatOptions& options) {
  if (spec == "yolo") return make_yolo_format(options);
  if (spec == "yolo-obb") {
    FormatOptions obb = options;
    obb.oriented = true;
    return make_yolo_format(obb);
  }
  if (spec == "dota") return make_dota_format(options);
  if (spec == "voc") return make_voc_format(options);
  if (spec.rfind("coco=", 0) == 0 && spec.size() > 5) return make_coco_format(spec.substr(5), options);
  if (spec == "coco") throw UsageError("--labels coco needs the annotation file: --labels coco=FILE");
  throw UsageError("--labels " + spec + ": expected yolo, yolo-obb, dota, voc or coco=FILE");
}

}  // namespace aug::labels
