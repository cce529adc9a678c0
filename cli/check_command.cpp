#include "cli/commands.h"
#include "workflows/check.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `check`: Clang's analysis of generated C++.
Command AddCheckCommand(CLI::App &app) {
  struct State {
    workflows::CheckOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "check", "Analyse generated C++ with Clang for conflicting declarations: redeclarations "
               "in one scope (pytorch#151290), conflicting types, return types or linkage, "
               "macro redefinitions, and extern \"C\" mismatches across linked TUs. Flags come "
               "from --commands, else from the arguments after `--`, else torch's include "
               "paths. A .cu file is parsed as CUDA (host side) with the CUDA toolkit of "
               "$CUDA_HOME, the nvcc on PATH or /usr/local/cuda; no GPU is needed.\nExample: "
               "inductor-fuzz check out/causal --format sarif (the folder run-case or capture "
               "wrote: every source its commands.json lists, each with its own flags; the same "
               "as out/causal/sources/*.cpp --commands out/causal/commands.json)");
  command
      ->add_option("files", options.files,
                   "C++ translation units, CUDA ones (.cu), or a folder `capture` or `run-case` "
                   "wrote")
      ->required();
  command->add_option("--commands", options.commands,
                      "commands.json from run-case: each file is parsed with its own flags");
  command->add_option("--format", options.format, "text, json or sarif (SARIF 2.1.0)")
      ->capture_default_str();
  command->add_flag("--linked", options.linked,
                    "The files are linked into one binary: compare extern \"C\" names");
  command->add_flag("!--no-shadowing", options.shadowing,
                    "Do not report inner declarations shadowing generated locals");
  command->add_flag("!--no-prefix-cache", options.prefix_cache,
                    "Parse every TU from scratch instead of reusing the precompiled prefix");
  command
      ->add_option("--compilers", options.compilers,
                   "Also build every file on these compilers (g++, clang++ or nvcc, by name "
                   "or path) and report compiler-divergence (see `matrix`) and the declaration "
                   "conflicts that only a g++ or nvcc rejects")
      ->delimiter(',');
  command->add_flag("--features", options.features,
                    "Also list each file's codegen features: the at::vec calls and types, "
                    "loop shapes, pragmas, ATen and AOTI calls, buffer types it holds (what "
                    "`fuzz`'s feedback counts; in --format json always)");
  command->add_option("--cache-dir", options.cache_dir,
                      "Where precompiled prefixes are kept (default ~/.cache/inductor-fuzz)");
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.compile_args = invocation.after_separator;
            return workflows::Check(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
