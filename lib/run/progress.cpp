#include "lib/run/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace aug {

std::string format_eta(double seconds) {
  if (seconds < 0 || seconds > 359999) return "--";
  const int s = static_cast<int>(seconds + 0.5);
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + (s % 60 < 10 ? "0" : "") + std::to_string(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + (s % 3600 / 60 < 10 ? "0" : "") + std::to_string(s % 3600 / 60) + "m";
}

std::string progress_line(const Progress& p, int columns) {
  const double rate = p.seconds > 0 ? p.done / p.seconds : 0;
  const std::size_t left = p.total > p.done ? p.total - p.done : 0;
  char text[200];
  std::snprintf(text, sizeof text, "%zu/%zu images, %zu failed, %.1f images/s, ETA %s", p.done, p.total, p.failed, rate,
                format_eta(rate > 0 ? left / rate : -1).c_str());
  const std::string prefix = "augment: ";
  const std::string body(text);
  // "[" bar "] " around the bar: 3 characters.
  const int room = columns - static_cast<int>(prefix.size() + body.size()) - 3;
  if (room < 10) return prefix + body;
  const int width = std::min(room, 40);
  const double fraction = p.total ? std::min(1.0, static_cast<double>(p.done) / p.total) : 0;
  const int filled = static_cast<int>(fraction * width);
  return prefix + "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + body;
}

int terminal_columns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

}  // namespace aug
