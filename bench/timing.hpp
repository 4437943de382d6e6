// What the benchmark programs share: the median of repeated wall-clock timings.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace aug::bench {

using Clock = std::chrono::steady_clock;

// f() `repeats` times; the median of the wall times, in milliseconds.
template <class F>
double median_ms(int repeats, F f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace aug::bench
