#include "cli/command.h"

#include "workflows/convert.h"

#include "support/errors.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <type_traits>

namespace cli {

template <typename Value>
CLI::Option *AddSharedOptionRow(CLI::App *command, const support::options::SharedOptionRow &row,
                                Value &value, const Value &default_value, std::string_view note) {
  constexpr bool kIsList = std::is_same_v<Value, std::vector<std::string>>;
  std::string help(row.help);
  if (!note.empty())
    help += fmt::format("; {}", note);
  if constexpr (kIsList)
    if (value.empty())
      help += fmt::format(" (default: those of {} installed)", fmt::join(default_value, ", "));
  auto *option = command->add_option(std::string(row.flag), value, help);
  if constexpr (kIsList)
    option->delimiter(',');
  // An empty value shows no default: "[]" would read as a value one could give.
  if constexpr (std::is_arithmetic_v<Value>)
    option->capture_default_str();
  else if (!value.empty())
    option->capture_default_str();
  if (row.check == support::options::OptionCheck::kPositive)
    option->check(CLI::PositiveNumber);
  return option;
}

// The value types of shared_options.def's rows.
template CLI::Option *AddSharedOptionRow(CLI::App *, const support::options::SharedOptionRow &,
                                         std::string &, const std::string &, std::string_view);
template CLI::Option *AddSharedOptionRow(CLI::App *, const support::options::SharedOptionRow &,
                                         long &, const long &, std::string_view);
template CLI::Option *AddSharedOptionRow(CLI::App *, const support::options::SharedOptionRow &,
                                         unsigned &, const unsigned &, std::string_view);
template CLI::Option *AddSharedOptionRow(CLI::App *, const support::options::SharedOptionRow &,
                                         std::vector<std::string> &,
                                         const std::vector<std::string> &, std::string_view);

void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds) {
  AddSharedOption<support::options::ProbeRuns>(command, runs);
  AddSharedOption<support::options::ProbeTime>(command, seconds);
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
