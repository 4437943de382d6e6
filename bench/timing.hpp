// What the benchmark programs share: the median of repeated wall-clock timings.
#pragma once

#include <algorithm>
#include <chrono>
#include <utility>
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

// f() and g() `repeats` times each, alternating (f, g, f, g, ...), so that a change in the
// machine's load reaches both alike; the medians of each, in milliseconds.
template <class F, class G>
std::pair<double, double> median_pair_ms(int repeats, F f, G g) {
  std::vector<double> a, b;
  for (int r = 0; r < repeats; ++r) {
    auto t = Clock::now();
    f();
    a.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    t = Clock::now();
    g();
    b.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[a.size() / 2], b[b.size() / 2]};
}

}  // namespace aug::bench
