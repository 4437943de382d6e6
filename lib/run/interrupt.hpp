// Ctrl-C: the first SIGINT (or SIGTERM) asks the run to stop taking new work and finish what is
// in flight; a second one quits at once (temporary files may stay; the next --resume or
// --overwrite run removes them).
#pragma once

namespace aug {

void install_interrupt_handler();
bool interrupted();

}  // namespace aug
