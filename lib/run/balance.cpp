#include "lib/run/balance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "lib/io/files.hpp"

namespace aug {

namespace fs = std::filesystem;

namespace {

// The copy index and stage position of the balance draw: no output uses them.
constexpr std::uint32_t kBalanceKey = 0xFFFFFFFFu;
constexpr std::uint32_t kTargetLimit = 10000;

std::uint32_t parse_target(const std::string& value, const std::string& where) {
  std::size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 0 || n > kTargetLimit)
    throw UsageError(where + ": copies \"" + value + "\" must be a whole number from 0 to " + std::to_string(kTargetLimit));
  return static_cast<std::uint32_t>(n);
}

// An object's class as the census counts it: its name where the format gives one (VOC, COCO), else its id.
std::string class_key(const labels::Object& object) {
  return object.name.empty() ? std::to_string(object.category) : object.name;
}

}  // namespace

std::string BalanceSpec::describe() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::repeat_factor: {
      char t[32];
      std::snprintf(t, sizeof t, "%g", threshold);
      return std::string("repeat-factor t=") + t;
    }
    case Kind::per_class: return "copies-per-class " + file.string();
  }
  return "";
}

BalanceSpec parse_balance(const std::string& text) {
  BalanceSpec spec;
  const std::string method = text.substr(0, text.find(':'));
  if (method != "repeat-factor")
    throw UsageError("--balance " + text + ": expected repeat-factor or repeat-factor:T (T, the frequency below "
                     "which a class is repeated, in (0, 1]; default 0.001)");
  spec.kind = BalanceSpec::Kind::repeat_factor;
  if (text.size() > method.size()) {
    const std::string value = text.substr(method.size() + 1);
    std::size_t used = 0;
    double t = 0;
    try {
      t = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || !(t > 0 && t <= 1))
      throw UsageError("--balance " + text + ": the threshold \"" + value + "\" must be a number in (0, 1]");
    spec.threshold = t;
  }
  return spec;
}

BalanceSpec read_copies_per_class(const fs::path& file) {
  BalanceSpec spec;
  spec.kind = BalanceSpec::Kind::per_class;
  spec.file = file;
  std::vector<std::uint8_t> bytes;
  try {
    bytes = read_file(file);
  } catch (const InputError& e) {
    throw UsageError("--copies-per-class " + file.string() + ": " + e.what());
  }
  const std::string text(bytes.begin(), bytes.end());
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError("--copies-per-class " + file.string() + ": not valid JSON: " + e.what());
    }
    for (const auto& [name, value] : doc.items()) {
      const std::string where = "--copies-per-class " + file.string() + ": class \"" + name + "\"";
      if (!value.is_number_integer() && !value.is_number_unsigned())
        throw UsageError(where + ": copies must be a whole number, not " + value.dump());
      spec.targets[name] = parse_target(value.dump(), where);
    }
  } else {
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      std::istringstream fields(line);
      std::string name, value, extra;
      if (!(fields >> name)) continue;
      const std::string where = "--copies-per-class " + file.string() + ":" + std::to_string(n);
      if (!(fields >> value) || (fields >> extra))
        throw UsageError(where + ": expected \"CLASS COPIES\" (a class id or name, then its copies)");
      if (spec.targets.count(name)) throw UsageError(where + ": class " + name + " is listed twice");
      spec.targets[name] = parse_target(value, where);
    }
  }
  if (spec.targets.empty())
    throw UsageError("--copies-per-class " + file.string() + ": no classes listed (expected {\"CLASS\": COPIES, ...} "
                     "or lines \"CLASS COPIES\")");
  return spec;
}

std::uint32_t BalancePlan::max_copies() const {
  std::uint32_t m = 0;
  for (const std::uint32_t c : copies) m = std::max(m, c);
  return m;
}

std::vector<std::string> BalancePlan::table() const {
  std::vector<std::string> out;
  char line[256];
  out.push_back("balance (" + spec.describe() + "): " + std::to_string(inputs) + " inputs -> " +
                std::to_string(outputs) + " outputs");
  std::size_t width = 5;
  for (const auto& c : classes) width = std::max(width, c.name.size());
  std::snprintf(line, sizeof line, "  %-*s %8s %9s %8s %8s %9s", static_cast<int>(width), "class", "images", "in freq",
                spec.kind == BalanceSpec::Kind::repeat_factor ? "repeat" : "target", "outputs", "out freq");
  out.emplace_back(line);
  for (const auto& c : classes) {
    std::snprintf(line, sizeof line, "  %-*s %8zu %9.4f %8.3f %8zu %9.4f", static_cast<int>(width), c.name.c_str(),
                  c.images, c.input_frequency, c.repeat, c.outputs, c.output_frequency);
    out.emplace_back(line);
  }
  if (unreadable > 0)
    out.push_back("  " + std::to_string(unreadable) + " input" + (unreadable == 1 ? "" : "s") +
                  " whose image header or labels could not be read: planned with --copies (the run reports them)");
  return out;
}

BalancePlan plan_balance(const BalanceSpec& spec, const std::vector<InputFile>& inputs, const labels::Format& format,
                         std::uint32_t base_copies, std::uint64_t seed) {
  BalancePlan plan;
  plan.spec = spec;
  plan.inputs = inputs.size();
  const std::optional<labels::ClassNames> names = format.class_names();

  // The census: each input's classes.
  std::vector<std::set<std::string>> classes_of(inputs.size());
  std::map<std::string, std::size_t> images;                 // class -> inputs containing it
  std::map<std::string, std::set<std::string>> aliases;      // class -> the names a targets file may use
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto size = oriented_size(inputs[i].path());
    if (!size) {
      ++plan.unreadable;
      continue;
    }
    labels::ImageLabels labels;
    try {
      labels = format.read(inputs[i].path(), inputs[i].rel, size->first, size->second);
    } catch (const Error&) {
      ++plan.unreadable;
      continue;
    }
    for (const auto& object : labels.objects) {
      const std::string key = class_key(object);
      if (!classes_of[i].insert(key).second) continue;
      auto& a = aliases[key];
      a.insert(key);
      if (object.name.empty()) {
        if (names)
          if (const auto it = names->names.find(object.category); it != names->names.end()) a.insert(it->second);
      }
    }
    for (const auto& key : classes_of[i]) ++images[key];
  }

  // Each class's repeat factor (or target), then each input's copies.
  std::map<std::string, double> factor;
  for (const auto& [key, n] : images) {
    const double f = static_cast<double>(n) / static_cast<double>(inputs.size());
    if (spec.kind == BalanceSpec::Kind::repeat_factor) {
      factor[key] = std::max(1.0, std::sqrt(spec.threshold / f));
    } else {
      std::optional<std::uint32_t> target;
      for (const auto& alias : aliases[key])
        if (const auto it = spec.targets.find(alias); it != spec.targets.end())
          target = std::max(target.value_or(0), it->second);
      factor[key] = target ? static_cast<double>(*target) : static_cast<double>(base_copies);
    }
  }
  plan.copies.resize(inputs.size(), base_copies);
  plan.repeat.resize(inputs.size(), 1.0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (classes_of[i].empty()) continue;
    double r = spec.kind == BalanceSpec::Kind::repeat_factor ? 1.0 : 0.0;
    for (const auto& key : classes_of[i]) r = std::max(r, factor[key]);
    plan.repeat[i] = r;
    if (spec.kind == BalanceSpec::Kind::per_class) {
      plan.copies[i] = static_cast<std::uint32_t>(r);
      continue;
    }
    const double want = r * base_copies;
    const double whole = std::floor(want);
    Draws draws(keyed_stream(seed, inputs[i].rel, kBalanceKey, kBalanceKey));
    const bool extra = want > whole && draws.uniform() < want - whole;
    plan.copies[i] = static_cast<std::uint32_t>(std::min<double>(whole + (extra ? 1 : 0), kTargetLimit));
  }

  // The resulting frequencies.
  std::map<std::string, std::size_t> outputs_with;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    plan.outputs += plan.copies[i];
    for (const auto& key : classes_of[i]) outputs_with[key] += plan.copies[i];
  }
  for (const auto& [key, n] : images) {
    BalanceClass c;
    c.name = key;
    if (names && key.find_first_not_of("-0123456789") == std::string::npos) {
      if (const auto it = names->names.find(std::stoll(key)); it != names->names.end()) c.name += " (" + it->second + ")";
    }
    c.images = n;
    c.input_frequency = static_cast<double>(n) / static_cast<double>(inputs.size());
    c.repeat = factor[key];
    c.outputs = outputs_with[key];
    c.output_frequency = plan.outputs ? static_cast<double>(c.outputs) / static_cast<double>(plan.outputs) : 0.0;
    plan.classes.push_back(std::move(c));
  }
  // Class ids in numeric order, names alphabetically after them.
  std::stable_sort(plan.classes.begin(), plan.classes.end(), [](const BalanceClass& a, const BalanceClass& b) {
    const bool an = std::isdigit(static_cast<unsigned char>(a.name[0])) != 0, bn = std::isdigit(static_cast<unsigned char>(b.name[0])) != 0;
    if (an != bn) return an;
    if (an) return std::stoll(a.name) < std::stoll(b.name);
    return a.name < b.name;
  });
  return plan;
}

}  // namespace aug
