#include "fuzzer/cli.h"

int main(int argc, char **argv) { return fuzzer::RunCommandLine(argc, argv); }
