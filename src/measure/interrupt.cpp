#include "measure/interrupt.hpp"

#include <csignal>
#include <unistd.h>

namespace gpubench::measure {
namespace {
std::atomic<int> g_signal{0};

extern "C" void on_signal(int signo) {
  if (g_signal.exchange(signo) != 0) _exit(128 + signo);  // second signal: leave now
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
void request_interrupt(int signo) { g_signal.store(signo); }

}  // namespace gpubench::measure
