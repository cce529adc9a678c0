#include "cli/commands.h"
#include "workflows/matrix.h"
#include <CLI/CLI.hpp>

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
      "matrix", "Rebuild every captured TU on every compiler (g++-11/12, clang++-14/15/16/19 by "
                "default) as Inductor would, load each build against torch's libtorch, run each on "
                "the kernel calls run-case recorded, and report compiler-divergence, load-error "
                "and runtime-divergence findings.\n"
                "Example: inductor-fuzz matrix out/causal --compilers g++-12,clang++-16");
  command->add_option("folders", options.inputs, "run-case output folders (or folders of them)")
      ->required();
  command->add_option("--compilers", options.compilers, "Compiler names or paths")->delimiter(',');
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
  command->add_option(
      "--sanitize", options.sanitize,
      "address, undefined or both: add a column that rebuilds every TU with -fsanitize=... "
      "-fno-omit-frame-pointer -g on top of Inductor's flags and replays its recorded calls in a "
      "worker with the sanitizer runtime preloaded; an error in the TU is a memory-error finding "
      "naming the kernel and the line");
  AddSanitizeCompilerOption(command, options.sanitize_compiler);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.command_line = invocation.command_line;
            return workflows::Matrix(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
