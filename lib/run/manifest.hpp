// --manifest: one JSON line per output (its input, copy index and every stage's resolved
// parameters, or "skipped"), in the order of the inputs, written to a temporary name and renamed
// when the run ends (also when it is interrupted).
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

namespace aug {

class ManifestWriter {
 public:
  explicit ManifestWriter(const std::filesystem::path& path);  // throws UsageError
  ~ManifestWriter();

  // Entry `seq` of the run (outputs are numbered in input order); written once every earlier
  // one has been. Thread-safe.
  void add(std::size_t seq, const nlohmann::json& entry);
  // Writes what is pending (gaps are runs' unprocessed outputs) and moves the file into place.
  void finish();

 private:
  void write_ready();

  std::filesystem::path path_, temp_;
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
  std::size_t next_ = 0;
  std::map<std::size_t, std::string> pending_;
};

}  // namespace aug
