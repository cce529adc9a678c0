#include "cli/command.h"

#include "workflows/convert.h"

#include "support/errors.h"

#include <CLI/CLI.hpp>

namespace cli {

// The one --sanitize-compiler of every command that builds sanitized kernels.
void AddSanitizeCompilerOption(CLI::App *command, std::string &compiler) {
  command
      ->add_option("--sanitize-compiler", compiler,
                   "The g++ or clang++ that builds the sanitized kernels (its runtime is the one "
                   "preloaded)")
      ->capture_default_str();
}

void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds) {
  command
      ->add_option("--probe-runs", runs,
                   "After a wrong result or a crash, run the case again with each non-default "
                   "setting put back (a 16-bit dtype to float32, dynamic to static, cpp_wrapper "
                   "off, each Inductor knob to its default, ...), at most this many times; the "
                   "settings without which it passes join the bug key (needs=...). 0: no probe")
      ->capture_default_str();
  command
      ->add_option("--probe-time", seconds, "Seconds after which the probe starts no more reruns")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

// A user's own mask module: the same options for run-case MODULE.py and convert MODULE.py.
void AddMaskModuleOptions(CLI::App *command, workflows::MaskModuleOptions &module) {
  command->add_option("--mask", module.mask, "MODULE.py: the mask_mod to run, by name");
  command->add_option("--score", module.score, "MODULE.py: the score_mod to run, by name");
  command->add_option("--api", module.api,
                      "MODULE.py: create_block_mask, create_mask or flex_attention (default: "
                      "flex_attention with --score, else create_block_mask)");
  command->add_option("--shape", module.shape, "MODULE.py: B,H,Q_LEN,KV_LEN")
      ->delimiter(',')
      ->expected(4)
      ->capture_default_str();
  command->add_option("--block-size", module.block_size, "MODULE.py: BLOCK_SIZE")
      ->capture_default_str();
  command->add_option("--head-dim", module.head_dim, "MODULE.py: flex_attention's E and Ev")
      ->capture_default_str();
  command->add_option("--dtype", module.dtype, "MODULE.py: flex_attention's q/k/v dtype")
      ->check(CLI::IsMember({"float32", "bfloat16", "float16"}))
      ->capture_default_str();
  command->add_option("--name", module.name, "MODULE.py: the case's name");
  command->add_option("--kernel-options", module.kernel_options,
                      "MODULE.py: flex_attention's kernel_options, a JSON object "
                      "(e.g. '{\"PARTITION_SIZE\": 256}')");
  command
      ->add_option("--layout", module.layout,
                   "MODULE.py: how q/k/v are laid out in memory: bshd-transposed, sliced or "
                   "expanded-kv (default: contiguous)")
      ->check(CLI::IsMember(corpus::kLayouts));
  command->add_option("--knob", module.knobs,
                      "MODULE.py: NAME=VALUE, an Inductor knob of the knob table set instead of "
                      "left at Inductor's default (repeatable; e.g. cpp.min_chunk_size=64)");
}

std::string JoinArguments(int argc, char **argv) {
  std::string joined;
  for (int i = 0; i < argc; ++i)
    joined += (i ? " " : "") + std::string(argv[i]);
  return joined;
}

} // namespace cli
