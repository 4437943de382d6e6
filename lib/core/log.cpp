#include "lib/core/log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/base_sink.h>

namespace aug {

namespace {

std::mutex g_stderr;
std::string g_status;

const char* level_word(spdlog::level::level_enum l) {
  switch (l) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warning";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "error";
    default: return "info";
  }
}

class StderrSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit StderrSink(LogFormat f) : format_(f) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string text(msg.payload.data(), msg.payload.size());
    std::string line;
    if (format_ == LogFormat::Json) {
      const auto t = std::chrono::system_clock::to_time_t(msg.time);
      char stamp[32];
      std::tm tm{};
      gmtime_r(&t, &tm);
      std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
      line = nlohmann::json{{"time", stamp}, {"level", level_word(msg.level)}, {"message", text}}.dump(
                 -1, ' ', false, nlohmann::json::error_handler_t::replace) +
             "\n";
    } else {
      line = std::string("augment: ") + level_word(msg.level) + ": " + text + "\n";
    }
    std::lock_guard lock(g_stderr);
    if (!g_status.empty()) std::fputs("\r\033[K", stderr);
    std::fputs(line.c_str(), stderr);
    if (!g_status.empty()) std::fputs(g_status.c_str(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  LogFormat format_;
};

}  // namespace

void init_logging(LogFormat format, spdlog::level::level_enum level) {
  auto logger = std::make_shared<spdlog::logger>("augment", std::make_shared<StderrSink>(format));
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

void set_status_line(const std::string& line) {
  std::lock_guard lock(g_stderr);
  std::fputs("\r\033[K", stderr);
  g_status = line;
  std::fputs(g_status.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace aug
