#pragma once
// Cooperative interruption: SIGINT / SIGTERM set a flag; sampling loops stop at the next sample
// boundary and the run writes the report of what was measured, marked `interrupted`.
#include <atomic>

namespace gpubench::measure {

/// Installs SIGINT and SIGTERM handlers that set the flag (a second signal exits at once).
void install_interrupt_handlers();
/// True once SIGINT or SIGTERM arrived.
bool interrupt_requested();
/// The signal number that arrived (0 if none): SIGINT → exit 130, SIGTERM → exit 143.
int interrupt_signal();
/// Test hook: behaves as if `signo` arrived.
void request_interrupt(int signo);

}  // namespace gpubench::measure
