#pragma once

#include "support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace workflows {

struct CaptureOptions {
  std::filesystem::path out_dir;
  std::vector<std::string> program; // after `--`: python script.py ARGS, python -m MODULE ARGS
  std::chrono::seconds timeout{3600};
  std::string command_line; // recorded in capture.json
};

// `inductor-fuzz capture --out DIR -- python script.py ARGS`: runs a user's own program in the
// venv's python with every compile Inductor runs captured and every kernel's calls recorded,
// and stores them as run-case does (commands.json, sources/, wrappers/, recordings/), so that
// check, matrix and compare work on the folder. Exit 0 when the program exited 0, 1 when it
// failed (the capture is stored all the same); InputError (exit 2) for unusable input.
int Capture(const CaptureOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
