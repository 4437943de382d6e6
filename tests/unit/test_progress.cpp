// The progress line of `augment run`: counts, failures, rate, ETA, and a bar that fits.
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/run/progress.hpp"

namespace aug::test_progress {
namespace {

TEST(Progress, EtaIsShortAndUnknownWhenItCannotBeTold) {
  EXPECT_EQ(format_eta(0), "0s");
  EXPECT_EQ(format_eta(59.4), "59s");
  EXPECT_EQ(format_eta(185), "3m05s");
  EXPECT_EQ(format_eta(3720), "1h02m");
  EXPECT_EQ(format_eta(-1), "--");
  EXPECT_EQ(format_eta(400000), "--");
}

TEST(Progress, AWideTerminalGetsABarThatShowsTheFractionDone) {
  const Progress p{40, 100, 2, 5.0};
  const std::string line = progress_line(p, 120);
  EXPECT_EQ(line.rfind("augment: [", 0), 0u) << line;
  EXPECT_NE(line.find("] 40/100 images, 2 failed, 8.0 images/s, ETA 8s"), std::string::npos) << line;
  const std::size_t open = line.find('['), close = line.find(']');
  const std::string bar = line.substr(open + 1, close - open - 1);
  EXPECT_EQ(bar.size(), 40u) << "at most 40 wide: " << line;
  EXPECT_EQ(std::count(bar.begin(), bar.end(), '#'), 16) << "40% of 40: " << line;
  EXPECT_EQ(std::count(bar.begin(), bar.end(), '.'), 24) << line;
  EXPECT_LE(line.size(), 120u);

  // Narrower: the bar shrinks to fit the terminal exactly.
  const std::string fits = progress_line(p, 70);
  EXPECT_EQ(fits.size(), 70u) << fits;
  EXPECT_NE(fits.find('['), std::string::npos) << fits;

  // Done: a full bar.
  const std::string done = progress_line({100, 100, 0, 10.0}, 120);
  EXPECT_NE(done.find("[" + std::string(40, '#') + "]"), std::string::npos) << done;
  EXPECT_NE(done.find("0 failed"), std::string::npos) << done;
}

TEST(Progress, ANarrowTerminalGetsTheCountsWithoutABar) {
  const std::string line = progress_line({3, 1000, 1, 0.0}, 60);
  EXPECT_EQ(line, "augment: 3/1000 images, 1 failed, 0.0 images/s, ETA --");
  EXPECT_EQ(line.find('['), std::string::npos);
}

}  // namespace
}  // namespace aug::test_progress
