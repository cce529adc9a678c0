#pragma once

#include "support/torch_environments.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// Where a capture folder was made, from its capture.json (inductor_fuzz_worker/
// capture_folder.py): the torch release and the roots its commands' absolute paths start with,
// and how those roots map onto this machine. A capture from another machine names that
// machine's torch and Python headers; its commands are rebuilt here against this machine's
// headers of the same releases, and never with a path of the other machine, even one that
// happens to exist here (the same venv path holding another release: a collision).
struct PathMapping {
  std::string from; // a root on the capturing machine
  std::string to;   // the same headers here
};

struct CaptureOrigin {
  std::filesystem::path capture_file; // the capture.json read
  std::string torch_version;          // as captured: "2.16.0+cu130"
  std::string python_version;         // "3.12.4"
  std::string machine;                // the capturing machine's ISA: "x86_64", "aarch64"
  // Whether its kernels can run here: the same ISA. Otherwise its TUs are only compiled.
  bool runs_here = true;
  std::vector<PathMapping> mappings;
  // What the commands need and this machine lacks, each with how to get it ("torch 2.16.0's
  // headers: scripts/setup --with-torch 2.16.0"); empty when the commands can be rebuilt here.
  std::vector<std::string> missing;
};

// The origin of the capture holding `commands_folder` (the folder of a commands.json: the
// capture itself, or one case of a capture of cases), or nullopt when it is no capture (a
// run-case or corpus record, whose paths are this machine's). `local` is this machine's torch
// environments (support::FindTorchEnvironments).
std::optional<CaptureOrigin> ReadCaptureOrigin(const std::filesystem::path &commands_folder,
                                               const std::vector<support::TorchEnvironment> &local);

// `argument` with a mapped root replaced by this machine's (the longest root that matches).
std::string MapArgument(const std::string &argument, const std::vector<PathMapping> &mappings);

} // namespace corpus
