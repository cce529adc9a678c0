#pragma once

#include "corpus/case.h"

#include <string>

namespace fuzzer::worker {

// A standalone Python script that reproduces the case with the venv's python: prints the torch
// version and the Inductor configuration, runs eager and torch.compile, compares them, and
// exits 1 on a difference. This is the repro format for issues.
std::string EmitPythonScript(const corpus::Case &c);

} // namespace fuzzer::worker
