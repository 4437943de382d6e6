#include "lib/run/jobs.hpp"

#include <algorithm>
#include <fstream>

#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "lib/io/files.hpp"
#include "lib/io/codec.hpp"

namespace aug {

std::optional<std::pair<int, int>> oriented_size(const fs::path& path) {
  std::vector<std::uint8_t> head(128 * 1024);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  ImageInfo info;
  try {
    info = probe(head.data(), head.size());
  } catch (const InputError&) {
    // A header past the first bytes (a large EXIF block): the whole file.
    try {
      const std::vector<std::uint8_t> bytes = read_file(path);
      info = probe(bytes.data(), bytes.size());
    } catch (const InputError&) {
      return std::nullopt;
    }
  }
  if (info.orientation >= 5) std::swap(info.width, info.height);
  return std::make_pair(info.width, info.height);
}

bool has_image_extension(const fs::path& p) { return format_for_extension(p.extension().string()).has_value(); }

std::vector<InputFile> list_inputs(const fs::path& input, const std::function<bool(const std::string& rel)>& keep) {
  std::error_code ec;
  const auto status = fs::status(input, ec);
  if (ec || !fs::exists(status)) throw UsageError("the input " + input.string() + " does not exist");
  std::vector<InputFile> out;
  if (fs::is_regular_file(status)) {
    if (!has_image_extension(input))
      throw UsageError("the input " + input.string() + " is not an image file (.jpg .jpeg .png .bmp .tif .tiff .webp)");
    out.push_back({std::make_shared<const std::string>(input.parent_path().string()), input.filename().generic_string()});
    return out;
  }
  if (!fs::is_directory(status)) throw UsageError("the input " + input.string() + " is neither a folder nor a file");
  const auto root = std::make_shared<const std::string>(input.string());
  fs::recursive_directory_iterator it(input, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw UsageError("cannot list " + input.string() + ": " + ec.message());
  for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) throw UsageError("cannot list " + input.string() + ": " + ec.message());
    const fs::path& p = it->path();
    if (!it->is_regular_file(ec) || !has_image_extension(p)) continue;
    if (p.filename().string().rfind(kTempPrefix, 0) == 0) continue;
    std::string rel = p.lexically_relative(input).generic_string();
    if (keep && !keep(rel)) continue;
    out.push_back({root, std::move(rel)});
  }
  std::sort(out.begin(), out.end(), [](const InputFile& a, const InputFile& b) { return a.rel < b.rel; });
  out.shrink_to_fit();  // a run keeps the list: not the quarter of it that growing by doubling leaves spare
  return out;
}

bool in_shard(const std::string& rel, int k, int n) {
  return n <= 1 || static_cast<int>(stable_hash(rel, 0x5A4D) % static_cast<std::uint64_t>(n)) == k;
}

NameTemplate NameTemplate::parse(const std::string& text) {
  NameTemplate t;
  t.text_ = text;
  std::size_t at = 0;
  while ((at = text.find('{', at)) != std::string::npos) {
    const auto close = text.find('}', at);
    if (close == std::string::npos) throw UsageError("--name \"" + text + "\": unclosed {");
    const std::string key = text.substr(at + 1, close - at - 1);
    if (key == "copy") t.uses_copy_ = true;
    else if (key != "stem" && key != "ext")
      throw UsageError("--name \"" + text + "\": unknown placeholder {" + key + "}; use {stem}, {ext} and {copy}");
    at = close + 1;
  }
  if (text.empty() || text.back() == '/' || text.front() == '/')
    throw UsageError("--name \"" + text + "\" must name a file below the output folder");
  for (const auto& part : fs::path(text))
    if (part == "..") throw UsageError("--name \"" + text + "\" must stay inside the output folder");
  return t;
}

std::string NameTemplate::render(const std::string& stem, const std::string& ext, std::uint32_t copy) const {
  std::string out;
  std::size_t at = 0;
  while (at < text_.size()) {
    if (text_[at] == '{') {
      const auto close = text_.find('}', at);
      const std::string key = text_.substr(at + 1, close - at - 1);
      out += key == "stem" ? stem : (key == "ext" ? ext : std::to_string(copy));
      at = close + 1;
    } else {
      out += text_[at++];
    }
  }
  return out;
}

}  // namespace aug
