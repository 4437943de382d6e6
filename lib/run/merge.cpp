#include "lib/run/merge.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/io/files.hpp"

namespace aug {

namespace {

using nlohmann::json;

std::string text_of(const fs::path& p) {
  const std::vector<std::uint8_t> b = read_file(p);
  return std::string(b.begin(), b.end());
}

// ---- manifests ----------------------------------------------------------------------------------

struct Record {
  std::string input, text, file;
  std::int64_t copy = 0;
  int rank = 0;  // 2 a full record, 1 "exists" (a resumed run found it), 0 an error
};

MergeSummary merge_manifests(const std::vector<fs::path>& files, const fs::path& output) {
  MergeSummary s{"manifest", files.size(), 0, 0};
  std::map<std::string, Record> by_output;
  for (const fs::path& f : files) {
    std::istringstream lines(text_of(f));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.empty()) continue;
      const json j = json::parse(line, nullptr, false);
      const std::string where = f.string() + ":" + std::to_string(n);
      if (j.is_discarded() || !j.is_object() || !j.contains("output") || !j["output"].is_string() ||
          !j.contains("input") || !j["input"].is_string() || !j.contains("copy") || !j["copy"].is_number_integer())
        throw UsageError(where + ": not a manifest record (a JSON object with input, output and copy)");
      Record r{j["input"].get<std::string>(), line, f.string(), j["copy"].get<std::int64_t>(),
               j.contains("error") ? 0 : (j.value("status", std::string()) == "exists" ? 1 : 2)};
      const std::string out = j["output"].get<std::string>();
      auto [it, fresh] = by_output.emplace(out, r);
      if (fresh) continue;
      ++s.duplicates;
      Record& kept = it->second;
      if (r.rank > kept.rank) kept = r;
      else if (r.rank == 2 && kept.rank == 2 && r.text != kept.text)
        throw UsageError(where + ": the output " + out + " is also in " + kept.file +
                         " with another record: these manifests are not shards of one run");
    }
  }
  std::vector<const Record*> order;
  for (const auto& [out, r] : by_output) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const Record* a, const Record* b) {
    return a->input != b->input ? a->input < b->input : a->copy < b->copy;
  });
  std::string text;
  for (const Record* r : order) text += r->text + "\n";
  write_file_atomic(output, text.data(), text.size());
  s.records = order.size();
  return s;
}

// ---- COCO ---------------------------------------------------------------------------------------

MergeSummary merge_coco(const std::vector<fs::path>& files, const fs::path& output) {
  MergeSummary s{"COCO", files.size(), 0, 0};
  std::optional<json> shared;  // every key but images and annotations, from the first file
  std::string shared_file;
  struct Image {
    json entry;
    std::vector<json> annotations;
    std::string file;
  };
  std::map<std::string, Image> images;  // by file_name
  for (const fs::path& f : files) {
    const json doc = json::parse(text_of(f), nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("images") || !doc["images"].is_array() ||
        !doc.contains("annotations") || !doc["annotations"].is_array())
      throw UsageError(f.string() + ": not a COCO file (an object with images and annotations)");
    json rest = doc;
    rest.erase("images");
    rest.erase("annotations");
    if (!shared) {
      shared = rest;
      shared_file = f.string();
    } else {
      for (const auto& [key, value] : rest.items())
        if (!shared->contains(key) || (*shared)[key] != value)
          throw UsageError(f.string() + ": \"" + key + "\" differs from " + shared_file +
                           "'s: these files are not shards of one run");
      for (const auto& [key, value] : shared->items())
        if (!rest.contains(key)) throw UsageError(f.string() + ": no \"" + key + "\", which " + shared_file + " has");
    }
    std::map<std::string, std::vector<json>> by_id;  // annotations by image id (as JSON text)
    for (const json& a : doc["annotations"]) {
      if (!a.is_object() || !a.contains("image_id")) throw UsageError(f.string() + ": an annotation without image_id");
      by_id[a["image_id"].dump()].push_back(a);
    }
    for (const json& im : doc["images"]) {
      if (!im.is_object() || !im.contains("file_name") || !im["file_name"].is_string() || !im.contains("id"))
        throw UsageError(f.string() + ": an image without id or file_name");
      const std::string name = im["file_name"].get<std::string>();
      Image entry{im, by_id[im["id"].dump()], f.string()};
      auto [it, fresh] = images.emplace(name, entry);
      if (fresh) continue;
      ++s.duplicates;
      // The same output from two shards (a shared folder): it must be the same image and objects.
      auto strip = [](json j) {
        j.erase("id");
        j.erase("image_id");
        return j;
      };
      bool same = strip(it->second.entry) == strip(im) && it->second.annotations.size() == entry.annotations.size();
      for (std::size_t i = 0; same && i < entry.annotations.size(); ++i)
        same = strip(it->second.annotations[i]) == strip(entry.annotations[i]);
      if (!same)
        throw UsageError(f.string() + ": the image " + name + " is also in " + it->second.file +
                         " with other contents: these files are not shards of one run");
    }
  }
  // Ids as one run assigns them: kept when unique, else 1..n in file-name order.
  auto unique = [](const std::vector<json>& ids) {
    std::unordered_set<std::string> seen;
    for (const json& id : ids)
      if (!seen.insert(id.dump()).second) return false;
    return true;
  };
  std::vector<json> image_ids, annotation_ids;
  for (const auto& [name, im] : images) {
    image_ids.push_back(im.entry["id"]);
    for (const json& a : im.annotations) annotation_ids.push_back(a.contains("id") ? a["id"] : json());
  }
  const bool keep_images = unique(image_ids), keep_annotations = unique(annotation_ids);
  json out = *shared;
  json out_images = json::array(), out_annotations = json::array();
  std::int64_t next_image = 1, next_annotation = 1;
  for (auto& [name, im] : images) {
    json entry = im.entry;
    if (!keep_images) entry["id"] = next_image++;
    for (json a : im.annotations) {
      if (!keep_annotations) a["id"] = next_annotation++;
      a["image_id"] = entry["id"];
      out_annotations.push_back(std::move(a));
    }
    out_images.push_back(std::move(entry));
  }
  out["images"] = std::move(out_images);
  out["annotations"] = std::move(out_annotations);
  // The serialisation augment run uses for its COCO file.
  const std::string text = out.dump(-1, ' ', false, json::error_handler_t::replace);
  write_file_atomic(output, text.data(), text.size());
  s.records = images.size();
  return s;
}

}  // namespace

MergeSummary merge_files(const std::vector<fs::path>& files, const fs::path& output) {
  if (files.empty()) throw UsageError("merge: name the files to join");
  std::error_code ec;
  std::set<std::string> exts;
  for (const fs::path& f : files) {
    if (!fs::is_regular_file(f, ec)) throw UsageError("merge: " + f.string() + " is not a file");
    if (fs::exists(output, ec) && fs::equivalent(f, output, ec))
      throw UsageError("merge: the output " + output.string() + " is one of the inputs");
    exts.insert(f.extension().string());
  }
  if (exts.size() != 1 || (*exts.begin() != ".jsonl" && *exts.begin() != ".json"))
    throw UsageError("merge: give manifests (.jsonl) or COCO files (.json), one kind at a time");
  return *exts.begin() == ".jsonl" ? merge_manifests(files, output) : merge_coco(files, output);
}

}  // namespace aug
