// Logging to stderr (stdout is for results): "augment: error: ..." lines, or JSON lines with
// --log-format json. A status line (the progress line on a terminal) is cleared before each log
// line and drawn again after it.
#pragma once

#include <string>

#include <spdlog/spdlog.h>

namespace aug {

enum class LogFormat { Text, Json };

void init_logging(LogFormat format, spdlog::level::level_enum level);

// Replaces the status line (empty: removes it). Only call when stderr is a terminal.
void set_status_line(const std::string& line);

}  // namespace aug
