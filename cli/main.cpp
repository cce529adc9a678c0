#include "cli/cli.h"

#include <csignal>

int main(int argc, char **argv) {
  // A worker that died mid-request must be an error the caller handles, never a SIGPIPE that
  // ends the whole tool.
  std::signal(SIGPIPE, SIG_IGN);
  return cli::RunCommandLine(argc, argv);
}
