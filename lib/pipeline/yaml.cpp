#include "lib/pipeline/yaml.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <regex>

#include <yaml-cpp/yaml.h>

#include "lib/core/error.hpp"

namespace aug {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// Well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF), as JSON text must be.
bool utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = 0;
    std::uint32_t cp = 0, min = 0;
    if (c < 0x80) n = 0, cp = c;
    else if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07, min = 0x10000;
    else return false;
    if (i + static_cast<std::size_t>(n) >= s.size() && n > 0) return false;  // cut short
    for (int k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(n) + 1;
  }
  return true;
}

class Reader {
 public:
  Reader(const std::string& source, std::map<std::string, std::pair<int, int>>& marks)
      : source_(source), marks_(marks) {}

  nlohmann::json value(const YAML::Node& n, const std::string& pointer, int depth = 0) {
    const YAML::Mark m = n.Mark();
    // An anchored node may contain an alias of itself: a cycle, not a tree.
    if (depth > kMaxDepth)
      fail(m, "nested deeper than " + std::to_string(kMaxDepth) + " levels (an alias inside its own anchor?)");
    // Aliases share nodes, so a small file can stand for an exponential number of values.
    if (++values_ > kMaxValues)
      fail(m, "the document expands to more than " + std::to_string(kMaxValues) + " values (aliases of aliases?)");
    if (m.line >= 0) marks_[pointer] = {m.line + 1, m.column + 1};
    switch (n.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return nullptr;
      case YAML::NodeType::Scalar: return scalar(n);
      case YAML::NodeType::Sequence: {
        nlohmann::json a = nlohmann::json::array();
        std::size_t i = 0;
        for (const YAML::Node& item : n) a.push_back(value(item, pointer + "/" + std::to_string(i++), depth + 1));
        return a;
      }
      case YAML::NodeType::Map: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& kv : n) {
          if (!kv.first.IsScalar()) fail(kv.first.Mark(), "a key must be a plain string");
          const std::string key = kv.first.Scalar();
          if (!utf8(key)) fail(kv.first.Mark(), "a key that is not UTF-8 text");
          if (o.contains(key)) fail(kv.first.Mark(), "the key \"" + key + "\" appears twice");
          o[key] = value(kv.second, pointer + "/" + escape_pointer(key), depth + 1);
        }
        return o;
      }
    }
    return nullptr;
  }

  [[noreturn]] void fail(const YAML::Mark& m, const std::string& what) const {
    throw PipelineError(source_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                        ": invalid YAML: " + what);
  }

 private:
  // YAML 1.2's core schema for plain scalars; quoted ones ("!" tag) stay strings.
  nlohmann::json scalar(const YAML::Node& n) const {
    const std::string& s = n.Scalar();
    if (!utf8(s)) fail(n.Mark(), "a value that is not UTF-8 text");
    if (n.Tag() == "!") return s;
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    static const std::regex integer(R"([-+]?[0-9]+)");
    static const std::regex number(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    if (std::regex_match(s, integer)) {
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (errno == 0) return v;
      fail(n.Mark(), "the integer " + s + " is out of range");
    }
    if (std::regex_match(s, number)) {
      errno = 0;
      const double v = std::strtod(s.c_str(), nullptr);
      if (errno == ERANGE && std::abs(v) > 1.0) fail(n.Mark(), "the number " + s + " is out of range");
      return v;
    }
    if (s == ".inf" || s == "+.inf" || s == "-.inf" || s == ".nan" || s == ".NaN")
      fail(n.Mark(), s + ": a pipeline takes finite numbers only");
    return s;
  }

  static constexpr std::size_t kMaxValues = 100'000;
  static constexpr int kMaxDepth = 200;
  const std::string& source_;
  std::map<std::string, std::pair<int, int>>& marks_;
  std::size_t values_ = 0;
};

}  // namespace

bool is_yaml_path(const std::string& path) {
  const std::string p = lower(path);
  auto ends = [&](const std::string& suffix) {
    return p.size() >= suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

nlohmann::json yaml_to_json(const std::string& text, const std::string& source,
                            std::map<std::string, std::pair<int, int>>& marks) {
  Reader reader(source, marks);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, e.msg);
  }
  try {
    return reader.value(root, "");
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, e.msg);
  }
}

}  // namespace aug
