#include "cli/commands.h"
#include "workflows/matrix.h"
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

namespace cli {

// `matrix`: every captured TU rebuilt and run on every compiler.
Command AddMatrixCommand(CLI::App &app) {
  struct State {
    workflows::MatrixCommandOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "matrix",
      fmt::format("Rebuild every captured TU on every compiler (by default those of {} installed) "
                  "as Inductor would, load each build against torch's libtorch, run each on the "
                  "kernel calls run-case recorded, and report compiler-divergence, load-error and "
                  "runtime-divergence findings.\n"
                  "Example: inductor-fuzz matrix out/causal --compilers g++-12,clang++-16",
                  fmt::join(support::options::MatrixCompilers::Default(), ", ")));
  command->add_option("folders", options.inputs, "run-case output folders (or folders of them)")
      ->required();
  AddSharedOption<support::options::MatrixCompilers>(command, options.compilers);
  command->add_option("--jobs", options.jobs, "Builds at once")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_flag(
      "--no-kernel-probes{false}", options.kernel_probes,
      "Do not build cpp_wrapper TUs a second time with kernel probes (by default every kernel "
      "call inside such a module has its written buffers compared across compilers, not only "
      "the module's results)");
  command->add_option("--timeout", options.timeout_seconds, "Seconds per build")
      ->capture_default_str();
  command->add_option("--json", options.json_out, "Write the whole matrix as JSON here");
  AddSharedOption<support::options::Sanitize>(
      command, options.sanitize,
      "here in a column of its own: every TU rebuilt so (with -fno-omit-frame-pointer -g) and its "
      "recorded calls replayed in a worker");
  AddSharedOption<support::options::SanitizeCompiler>(command, options.sanitize_compiler);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.command_line = invocation.command_line;
            return workflows::Matrix(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
