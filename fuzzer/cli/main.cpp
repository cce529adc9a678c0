#include "fuzzer/cli/cli.h"

int main(int argc, char **argv) { return fuzzer::cli::RunCommandLine(argc, argv); }
