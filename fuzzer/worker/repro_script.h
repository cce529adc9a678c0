#pragma once

#include "corpus/case.h"

#include <string>

namespace fuzzer::worker {

// A standalone Python script that reproduces the case with the venv's python: prints the torch
// version and the complete Inductor configuration, runs eager and torch.compile as the worker
// does, compares them with the worker's own oracle modules (embedded in the script), and exits
// 1 on a difference, 0 with "PASS" otherwise, 2 when eager itself fails. The environment
// variable INDUCTOR_FUZZ_TEST_PLANT plants a difference, for tests. This is the repro format
// for issues.
std::string EmitPythonScript(const corpus::Case &c);

} // namespace fuzzer::worker
