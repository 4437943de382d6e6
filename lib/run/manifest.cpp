#include "lib/run/manifest.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "lib/core/error.hpp"
#include "lib/io/files.hpp"

namespace aug {

ManifestWriter::ManifestWriter(const std::filesystem::path& path) : path_(path) {
  // Named as the outputs' temporaries, so that another task's --resume in the same folder knows
  // that its writer is alive.
  temp_ = temp_path_for(path);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);  // checked before the run
  file_ = std::fopen(temp_.c_str(), "wx");
  if (!file_) throw UsageError("cannot write the manifest " + path.string() + ": " + std::strerror(errno));
}

ManifestWriter::~ManifestWriter() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_.c_str());
  }
}

void ManifestWriter::add(std::size_t seq, const nlohmann::json& entry) {
  std::string line = entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mutex_);
  pending_.emplace(seq, std::move(line));
  write_ready();
}

void ManifestWriter::write_ready() {
  for (auto it = pending_.begin(); it != pending_.end() && it->first == next_; it = pending_.erase(it), ++next_)
    std::fputs(it->second.c_str(), file_);
}

void ManifestWriter::finish() {
  std::lock_guard lock(mutex_);
  for (const auto& [seq, line] : pending_) std::fputs(line.c_str(), file_);
  pending_.clear();
  const bool ok = std::fflush(file_) == 0 && std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_.c_str());
    throw UsageError("cannot write the manifest " + path_.string() + ": " + std::strerror(errno));
  }
}

}  // namespace aug
