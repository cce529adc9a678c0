#pragma once

// What a worker may do to the machine. A case is code (mask and score sources, op programs, a
// capture's replays): by default the worker that runs it has no network and writes only beneath
// the folders the driver names. Both are applied once, at the worker's start, while it is still
// one thread, so that torch's threads and every compiler it starts inherit them.

#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::worker {

struct ConfinementRequest {
  bool confine = false;
  std::vector<std::filesystem::path> write_roots; // writes are allowed beneath these only
};

// What was applied, in words the ready line and `doctor` print.
struct ConfinementReport {
  std::string network; // "none (own network namespace)", or why it is still there
  std::string writes;  // "beneath N folders (Landlock ABI v)", or why they are not limited
  bool network_cut = false;
  bool writes_limited = false;
};

// Applies what `request` asks for as far as this kernel allows; never fails the worker: what it
// could not apply is said in the report.
ConfinementReport ApplyConfinement(const ConfinementRequest &request);

} // namespace fuzzer::worker
