#include "lib/run/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace aug {

namespace {
std::atomic<int> g_signals{0};

extern "C" void on_signal(int) {
  if (g_signals.fetch_add(1) >= 1) _exit(130);
}
}  // namespace

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return g_signals.load() > 0; }

}  // namespace aug
