// The subcommands: each registers its options on the CLI11 app and runs by calling lib/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "lib/core/error.hpp"
#include "lib/run/runner.hpp"
#include "lib/run/tile.hpp"

namespace aug::app {

struct GlobalOptions {
  std::string log_format = "text";
  std::string log_level = "info";
};

std::string version_text();

class Commands {
 public:
  Commands(CLI::App& app, const GlobalOptions& global);
  Exit run_selected();

 private:
  Exit run();
  Exit validate();
  Exit stages();
  Exit describe();
  Exit schema();
  Exit devices();
  Exit verify_devices();
  Exit import_pipeline();
  Exit preview();
  Exit merge();
  Exit tile();

  CLI::App& app_;
  const GlobalOptions& global_;
  CLI::App *run_ = nullptr, *validate_ = nullptr, *stages_ = nullptr, *describe_ = nullptr, *schema_ = nullptr,
           *devices_ = nullptr, *verify_ = nullptr, *import_ = nullptr,
           *preview_ = nullptr, *merge_ = nullptr, *tile_ = nullptr;

  // run
  std::string pipeline_, input_, output_, device_ = "auto", progress_ = "auto", shard_, manifest_, masks_,
      masks_output_, balance_, copies_per_class_;
  RunOptions run_options_;
  std::optional<std::uint64_t> seed_;
  std::optional<int> shards_;
  std::uint64_t max_pixels_ = 100'000'000;
  double progress_every_ = 10;
  bool fail_fast_ = false;
  // verify-devices
  std::string verify_devices_ = "all", verify_dtypes_, report_, html_;
  std::vector<std::string> tolerances_;
  std::size_t verify_images_ = 0;
  bool require_gpu_ = false;
  // tile
  TileOptions tile_options_;
  std::string tile_size_;
  // merge
  std::vector<std::string> merge_files_;
  std::string merge_output_;
  // preview
  std::size_t preview_images_ = 4;
  std::uint32_t preview_variants_ = 8;
  std::string preview_output_ = "preview.html";
  // validate / describe / import
  std::string validate_path_, stage_name_, import_from_, import_output_, import_name_;
  int import_release_ = 0;
  bool json_ = false;
  bool markdown_ = false;
};

}  // namespace aug::app
