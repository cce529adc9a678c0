#pragma once

#include "corpus/case.h"

#include <string>
#include <vector>

namespace fuzzer::worker {

// A standalone Python script that reproduces the case with the venv's python: prints the torch
// version and the complete Inductor configuration, runs eager and torch.compile as the worker
// does, compares them with the worker's own oracle modules (embedded in the script), and exits
// 1 on a difference, 0 with "PASS" otherwise, 2 when eager itself fails. The environment
// variable INDUCTOR_FUZZ_TEST_PLANT plants a difference, for tests. This is the repro format
// for issues.
std::string EmitPythonScript(const corpus::Case &c);

// The worker modules the script carries (names in the package, "oracles"), in the order it
// pastes them: oracles and, before each module, the modules it imports (its `from .NAME import`
// lines), depth first in the order of those lines. Derived from the modules' sources, so that
// a new module an API imports is carried with no list to edit; std::logic_error when two
// import each other.
std::vector<std::string> ReproScriptModules();

} // namespace fuzzer::worker
