#include "lib/params/import.hpp"

#include <cctype>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lib/core/error.hpp"

namespace aug {

using nlohmann::json;

std::pair<int, int> TransformReader::release() const {
  int major = 0, minor = -1;
  const std::string& r = release_;
  std::size_t i = 0;
  while (i < r.size() && std::isdigit(static_cast<unsigned char>(r[i]))) major = major * 10 + (r[i++] - '0');
  if (i == 0 || r.find(" or ") != std::string::npos) return {0, -1};
  if (i < r.size() && r[i] == '.' && i + 1 < r.size() && std::isdigit(static_cast<unsigned char>(r[i + 1]))) {
    minor = 0;
    for (++i; i < r.size() && std::isdigit(static_cast<unsigned char>(r[i])); ++i) minor = minor * 10 + (r[i] - '0');
  }
  return {major, minor};
}

bool TransformReader::has(const char* key) const { return t_.contains(key) && !t_.at(key).is_null(); }

const char* TransformReader::first_of(std::initializer_list<const char*> keys) const {
  for (const char* k : keys)
    if (has(k)) return k;
  return *keys.begin();
}

double TransformReader::number(const char* key, double fallback) const {
  if (!has(key)) return fallback;
  if (!t_.at(key).is_number()) fail(std::string("\"") + key + "\" must be a number, not " + t_.at(key).dump());
  return t_.at(key).get<double>();
}

bool TransformReader::flag(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  if (!t_.at(key).is_boolean()) fail(std::string("\"") + key + "\" must be true or false, not " + t_.at(key).dump());
  return t_.at(key).get<bool>();
}

std::pair<double, double> TransformReader::limit_in(const json& object, const char* key,
                                                    std::pair<double, double> fallback, bool symmetric,
                                                    double low) const {
  if (!object.contains(key) || object.at(key).is_null()) return fallback;
  const json& v = object.at(key);
  if (v.is_number()) {
    const double x = v.get<double>();
    return symmetric ? std::pair{-std::fabs(x), std::fabs(x)} : std::pair{std::min(low, x), std::max(low, x)};
  }
  if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number()) {
    const double a = v[0].get<double>(), b = v[1].get<double>();
    return {std::min(a, b), std::max(a, b)};
  }
  fail(std::string("\"") + key + "\" must be a number or a pair of numbers, not " + v.dump());
}

std::pair<double, double> TransformReader::limit(const char* key, std::pair<double, double> fallback, bool symmetric,
                                                 double low) const {
  return limit_in(t_, key, fallback, symmetric, low);
}

std::pair<double, double> TransformReader::value_or_range(const char* key, std::pair<double, double> fallback) const {
  if (t_.contains(key) && t_.at(key).is_number()) {
    const double x = t_.at(key).get<double>();
    return {x, x};
  }
  return limit(key, fallback, false);
}

std::string TransformReader::interpolation(const char* key) const {
  const int v = static_cast<int>(number(key, 1));
  switch (v) {
    case 0: return "nearest";
    case 1: return "bilinear";
    case 2: return "bicubic";
    case 3: return "area";
    case 4: return "lanczos";
    case 5: return "bilinear";  // INTER_LINEAR_EXACT: what bilinear computes on 8-bit images
    default:
      fail(std::string("\"") + key + "\" = " + std::to_string(v) +
           " (cv2.INTER_NEAREST_EXACT or another) has no stage equivalent; use 0 to 5");
  }
}

std::string TransformReader::warp_interpolation(const char* key) const {
  const std::string w = interpolation(key);
  if (w == "area") {
    note("INTER_AREA: cv2.warpAffine, cv2.warpPerspective and cv2.remap sample it as INTER_LINEAR; so does this "
         "stage (bilinear)");
    return "bilinear";
  }
  return w;
}

std::string TransformReader::border(int fallback) const {
  const char* key = first_of({"border_mode", "mode", "pad_mode"});
  int v = fallback;
  if (has(key)) {
    if (!t_.at(key).is_number_integer())
      fail(std::string("\"") + key + "\" must be a cv2.BORDER_* code, not " + t_.at(key).dump());
    v = t_.at(key).get<int>();
  }
  switch (v) {
    case 0: return "constant";
    case 1: return "replicate";
    case 2: return "reflect";
    case 3: return "wrap";
    case 4: return "reflect101";
    default: fail("border mode " + std::to_string(v) + " has no stage equivalent");
  }
}

void TransformReader::fill(ojson& stage) const {
  const char* key = first_of({"fill", "value", "cval"});
  if (!has(key)) return;
  const json& v = t_.at(key);
  if (v.is_number() || (v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number(); })))
    stage["fill"] = v;
  else fail(std::string("\"") + key + "\" must be a number or a list of numbers, not " + v.dump());
}

void TransformReader::mask_fill() const {
  const char* key = first_of({"fill_mask", "mask_value"});
  if (!has(key) || !t_.at(key).is_number()) return;
  const double v = t_.at(key).get<double>();
  if (*mask_fill_ && **mask_fill_ != v)
    note("mask fill " + std::to_string(v) + " differs from an earlier transform's; the pipeline keeps the first");
  if (!*mask_fill_) *mask_fill_ = v;
}

ojson TransformReader::size() const {
  if (has("size")) {
    const json& v = t_.at("size");
    if (v.is_array() && v.size() == 2) return ojson::array({v[1], v[0]});
    if (v.is_number_integer()) return ojson::array({v, v});
    fail("\"size\" must be (height, width), not " + v.dump());
  }
  if (!has("height") || !has("width")) fail("needs \"height\" and \"width\" (or \"size\")");
  return ojson::array({t_.at("width"), t_.at("height")});
}

void TransformReader::note(const std::string& what) const { notes_->push_back(where_ + ": " + what); }

void TransformReader::fail(const std::string& what) const {
  throw PipelineError((source_.empty() ? std::string() : source_ + ": ") + where_ + ": " + what);
}

ojson span(double lo, double hi) { return lo == hi ? ojson(lo) : ojson::array({lo, hi}); }

ojson ispan(double lo, double hi) {
  const auto a = static_cast<std::int64_t>(std::llround(lo)), b = static_cast<std::int64_t>(std::llround(hi));
  return a == b ? ojson(a) : ojson::array({a, b});
}

}  // namespace aug
