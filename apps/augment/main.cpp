// augment: the command line. Parses arguments, calls lib/, and maps every error to the
// documented exit codes in one place (see README "Exit codes").
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <spdlog/spdlog.h>

#include "apps/augment/commands.hpp"
#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/core/process.hpp"
#include "lib/io/codec.hpp"

int main(int argc, char** argv) {
  aug::keep_large_buffers_in_heap();
  // Parallelism is across images, on every backend: OpenCV calls (decoding, encoding, the CPU
  // stages, verify-devices' comparisons) stay on the thread that makes them, never OpenCV's pool.
  cv::setNumThreads(0);

  // `augment --verify-devices ...` is `augment verify-devices ...`.
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--verify-devices") {
      args.erase(args.begin() + static_cast<long>(i));
      args.insert(args.begin() + 1, "verify-devices");
      break;
    }

  CLI::App app{"augment: augment image folders with a JSON pipeline, on the CPU or a CUDA GPU, "
               "with the same pixels on both."};
  app.set_version_flag("--version", std::function<std::string()>(aug::app::version_text));
  app.require_subcommand(1);
  app.fallthrough();

  aug::app::GlobalOptions global;
  app.add_option("--log-format", global.log_format, "text or json (logs on stderr, one JSON object per line)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--log-level", global.log_level, "error, warning, info or debug")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}))
      ->capture_default_str();

  aug::app::Commands commands(app, global);

  try {
    std::vector<const char*> cargs;
    for (const auto& a : args) cargs.push_back(a.c_str());
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(aug::Exit::usage);
  }

  aug::init_logging(global.log_format == "json" ? aug::LogFormat::Json : aug::LogFormat::Text,
                    spdlog::level::from_str(global.log_level == "warning" ? "warn" : global.log_level));
  try {
    return static_cast<int>(commands.run_selected());
  } catch (const aug::Error& e) {
    spdlog::error("{}", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return static_cast<int>(aug::Exit::usage);
  }
}
