// The progress line of `augment run` on a terminal: images done, failures, rate, ETA, and a bar
// when the terminal is wide enough.
#pragma once

#include <cstddef>
#include <string>

namespace aug {

struct Progress {
  std::size_t done = 0;    // outputs written or failed
  std::size_t total = 0;   // outputs to make
  std::size_t failed = 0;  // outputs failed so far
  double seconds = 0;      // since the start
};

// "12s", "3m05s", "1h02m", or "--" when unknown (negative or over 99 hours).
std::string format_eta(double seconds);

// The line, at most `columns` characters when that is possible: the bar (at most 40 wide) only
// when at least 10 characters are left for it, e.g.
// "augment: [########............] 40/100 images, 2 failed, 8.1 images/s, ETA 7s".
std::string progress_line(const Progress& p, int columns);

// The width of the terminal on stderr, else $COLUMNS, else 80.
int terminal_columns();

}  // namespace aug
