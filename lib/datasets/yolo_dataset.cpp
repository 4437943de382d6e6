#include "lib/datasets/yolo_dataset.hpp"

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/files.hpp"
#include "lib/pipeline/yaml.hpp"

namespace aug::labels {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSplits[] = {"train", "val", "test"};

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p.lexically_normal() : r;
}

// A YAML scalar in single quotes where it would not read back as the same string (a number, a
// keyword, punctuation YAML gives a meaning).
std::string quoted(const std::string& s) {
  bool plain = !s.empty() && s[0] != '-';
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/' || c == '.')) plain = false;
  if (plain) {
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    const bool number = end == s.c_str() + s.size() || (s.size() > 1 && s[0] == '.' && !std::isdigit(static_cast<unsigned char>(s[1])) && s.find('/') == std::string::npos && s.size() <= 4);
    static const char* const kWords[] = {"true", "false", "null", "yes", "no", "on", "off", "True", "False", "Null", "NULL", "Yes", "No", "On", "Off", "TRUE", "FALSE", "YES", "NO", "ON", "OFF", "y", "n", "Y", "N", "~"};
    bool word = false;
    for (const char* w : kWords) word = word || s == w;
    if (number || word) plain = false;
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A value of the document (a split's list, kpt_shape, flip_idx...) as one line of YAML flow style.
std::string flow(const json& v) {
  if (v.is_string()) return quoted(v.get<std::string>());
  if (v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + flow(v[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      out += (first ? "" : ", ") + quoted(k) + ": " + flow(x);
      first = false;
    }
    return out + "}";
  }
  return v.dump();
}

}  // namespace

YoloDataset read_yolo_dataset(const fs::path& file) {
  const std::vector<std::uint8_t> bytes = read_file(file);
  YoloDataset d;
  d.file = file;
  std::map<std::string, std::pair<int, int>> marks;
  try {
    d.doc = yaml_to_json(std::string(bytes.begin(), bytes.end()), file.string(), marks);
  } catch (const Error& e) {
    throw InputError(e.what());
  }
  if (!d.doc.is_object()) throw InputError(file.string() + ": a dataset file is a mapping (names:, train:, val:)");
  d.root = file.parent_path();
  if (d.doc.contains("path") && d.doc["path"].is_string()) {
    const fs::path p = d.doc["path"].get<std::string>();
    d.root = p.is_absolute() ? p : file.parent_path() / p;
  }
  if (d.doc.contains("names")) {
    const json& n = d.doc["names"];
    if (n.is_array()) {
      for (std::size_t i = 0; i < n.size(); ++i)
        d.names[static_cast<int>(i)] = n[i].is_string() ? n[i].get<std::string>() : n[i].dump();
    } else if (n.is_object()) {
      for (const auto& [k, v] : n.items()) {
        std::size_t used = 0;
        int id = -1;
        try {
          id = std::stoi(k, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != k.size() || id < 0)
          throw InputError(file.string() + ": names: \"" + k + "\" is not a class id (names maps 0, 1, ... to names)");
        d.names[id] = v.is_string() ? v.get<std::string>() : v.dump();
      }
    } else {
      throw InputError(file.string() + ": names must be a list or a mapping of class ids to names");
    }
  }
  return d;
}

std::optional<YoloDataset> find_yolo_dataset(const fs::path& input) {
  std::error_code ec;
  fs::path folder = resolved(input);
  if (!fs::is_directory(folder, ec)) folder = folder.parent_path();
  for (int up = 0; up < 4 && !folder.empty(); ++up) {
    for (const char* name : {"data.yaml", "dataset.yaml"}) {
      const fs::path f = folder / name;
      if (fs::is_regular_file(f, ec)) return read_yolo_dataset(f);
    }
    if (folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

fs::path yolo_dataset_path(const fs::path& output) {
  const fs::path out = output.lexically_normal();
  std::vector<fs::path> parts(out.begin(), out.end());
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  for (std::size_t i = parts.size(); i-- > 0;)
    if (parts[i] == "images") {
      fs::path root;
      for (std::size_t j = 0; j < i; ++j) root /= parts[j];
      return root / "data.yaml";
    }
  return out / "data.yaml";
}

fs::path write_yolo_dataset(const fs::path& output, const fs::path& input, const std::optional<YoloDataset>& in,
                            const std::set<int>& seen) {
  const fs::path file = yolo_dataset_path(output);
  const fs::path root = resolved(file.parent_path().empty() ? fs::path(".") : file.parent_path());
  const std::string split = resolved(output).lexically_relative(root).generic_string();
  std::optional<YoloDataset> existing;
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) {
    try {
      existing = read_yolo_dataset(file);
    } catch (const InputError&) {
      existing.reset();  // not one this tool can read: replaced
    }
  }

  // The splits: the one the input is (train without an input file) becomes the output; the others
  // point where the input's file says, unless an existing output file already names them.
  json splits = json::object();
  std::set<std::string> mine;  // the splits that are this run's output
  const std::string here = split.empty() ? "." : split;
  if (in) {
    const fs::path input_path = resolved(input);
    for (const char* key : kSplits) {
      if (!in->doc.contains(key) || in->doc[key].is_null()) continue;
      auto map_one = [&](const json& v) -> json {
        if (!v.is_string()) return v;
        const fs::path p = v.get<std::string>();
        const fs::path at = resolved(p.is_absolute() ? p : in->root / p);
        if (at != input_path) return at.generic_string();
        mine.insert(key);
        return here;
      };
      const json& v = in->doc[key];
      if (v.is_array()) {
        json a = json::array();
        for (const json& x : v) a.push_back(map_one(x));
        splits[key] = a;
      } else {
        splits[key] = map_one(v);
      }
    }
  }
  if (mine.empty()) {
    splits["train"] = here;
    mine.insert("train");
  }
  if (existing)
    for (const char* key : kSplits)
      if (existing->doc.contains(key) && !mine.count(key)) splits[key] = existing->doc[key];
  if (!splits.contains("val")) splits["val"] = splits["train"];

  std::map<int, std::string> names;
  if (in && !in->names.empty()) names = in->names;
  else if (existing) names = existing->names;
  if (!in || in->names.empty()) {
    const int top = seen.empty() ? -1 : *seen.rbegin();
    for (int id = 0; id <= top; ++id) names.emplace(id, std::to_string(id));
  }

  std::string text = "# written by augment run (YOLO labels of " + resolved(input).generic_string() + ")\n";
  for (const char* key : kSplits)
    if (splits.contains(key)) text += std::string(key) + ": " + flow(splits[key]) + "\n";
  if (in)
    for (const auto& [k, v] : in->doc.items()) {
      if (k == "path" || k == "names" || k == "nc" || k == "download" || k == "train" || k == "val" || k == "test")
        continue;
      text += quoted(k) + ": " + flow(v) + "\n";
    }
  text += "nc: " + std::to_string(names.empty() ? 0 : names.rbegin()->first + 1) + "\n";
  text += "names:\n";
  for (const auto& [id, name] : names) text += "  " + std::to_string(id) + ": " + quoted(name) + "\n";
  write_file_atomic(file, text.data(), text.size());
  return file;
}

}  // namespace aug::labels
