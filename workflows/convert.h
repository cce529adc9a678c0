#pragma once

#include "corpus/case.h"
#include "support/tool_paths.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace fuzzer::worker {
class Worker;
}

namespace workflows {

// What makes a case of a user's own mask module (the functions come from the module; the rest
// from here).
struct MaskModuleOptions {
  std::string mask;  // the module's mask_mod, by name
  std::string score; // the module's score_mod, by name
  std::string api;   // empty: flex_attention with a score, create_block_mask without
  std::vector<std::int64_t> shape{1, 1, 256, 256}; // B, H, Q_LEN, KV_LEN
  std::int64_t block_size = 128;
  std::int64_t head_dim = 16;
  std::string dtype = "float32";
  std::string name;               // empty: the module's name and the functions'
  std::string kernel_options;     // empty, or flex_attention's kernel_options as a JSON object
  std::string layout;             // empty (contiguous), or one of corpus::kLayouts
  std::vector<std::string> knobs; // NAME=VALUE: Inductor knobs set instead of left to Inductor
  std::string command_line;
};

struct ConvertOptions {
  std::filesystem::path input; // a Python module, or a case file to store again (sidecars)
  std::filesystem::path out_file;
  MaskModuleOptions module;
};

// The case of `module`'s functions, self-contained: their sources, the constants they close
// over and the tensors they read, converted by `worker`'s Python; each thing that keeps the
// case from standing alone is written to `warnings` as a line. Throws InputError for a module
// that cannot be converted.
corpus::Case CaseFromMaskModule(fuzzer::worker::Worker &worker, const std::filesystem::path &module,
                                const MaskModuleOptions &options, std::ostream &warnings);

// `inductor-fuzz convert MODULE.py --mask NAME [--score NAME] --out CASE.json`, or
// `convert BIG.json --out CASE.json` (large tensors moved to sidecars). Exit 0, or 2.
int Convert(const ConvertOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
