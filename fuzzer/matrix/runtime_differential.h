#pragma once

#include "fuzzer/matrix/compiler_matrix.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <vector>

namespace fuzzer::worker {
class Worker;
}

namespace fuzzer::matrix {

struct RuntimeOptions {
  std::chrono::seconds timeout{300}; // per replayed module, all its recorded calls
  // Per dtype and op family (tolerances.h's ToJson); empty: the checked-in table.
  nlohmann::json tolerances;
};

// One module's replay of a TU's recorded calls: the status as TuBuild::runtime, what the worker
// said, and how long it took.
struct Replay {
  std::string status;
  nlohmann::json detail;
  double seconds = 0;
};
// Files a replay writes or reads besides the recording; each is used only when set.
struct ReplayFiles {
  // The worker writes there, before each call, where every tensor argument lives (bad_access.h).
  std::filesystem::path call_journal;
  // A probed build's kernel probes of each call are kept there.
  std::filesystem::path probe_dir;
  // Every tensor the build left is saved there, to compare another build's with (`against`).
  std::filesystem::path keep_outputs;
  // Another build's keep_outputs: the replay's "agreement" says whether this build left
  // exactly the same tensors (fp_pinning.h).
  std::filesystem::path against;
};
Replay ReplayModule(worker::Worker &worker, const std::filesystem::path &module,
                    const CapturedTu &tu, const RuntimeOptions &options,
                    const ReplayFiles &files = {});
// One line for people: "same on 3 tensor(s)", "differs: out (float32) at [0, 3]: ...".
std::string DescribeReplay(const Replay &replay);

// Replays the kernel calls recorded when Inductor's own build ran (run-case keeps them in
// recordings/) on every compiler's build that built and loaded: copies of the recorded input
// storages go in, every tensor argument and returned tensor is compared with what Inductor's
// build left, exactly for integers and bool and within a per-dtype tolerance for floating
// point. Inductor's own build is replayed first: one that does not reproduce its own
// recording is nondeterministic and its row is not compared. A build that kills or hangs the
// worker is reported as such; the worker restarts for the next one. Where builds have probed
// twins (cpp_wrapper modules), every kernel call's written buffers are compared across
// compilers too: a kernel that writes something else is a difference even when the module's
// results agree.
void ReplayRecordedCalls(std::vector<TuMatrix> &matrix, worker::Worker &worker,
                         const RuntimeOptions &options, const Progress &progress);

// A runtime-divergence finding when some builds compute what Inductor's build computed and
// others do not (or crash); its detail has the largest absolute and relative error and index.
std::optional<corpus::Finding> RuntimeDivergenceFinding(const TuMatrix &row);

} // namespace fuzzer::matrix
