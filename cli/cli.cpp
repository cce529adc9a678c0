#include "cli/cli.h"

#include "cli/commands.h"
#include "fuzzer/worker/worker_client.h"
#include "support/errors.h"
#include "support/torch_environments.h"
#include "support/version.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

namespace {

// "unknown command 'X'; the commands are: ..." (or "no command given; ..."): the first word that
// is neither an option nor the value of a global one is the command the user meant.
std::string UnknownCommandMessage(CLI::App &app, int argc, char **argv) {
  std::string commands;
  for (const CLI::App *command : app.get_subcommands({}))
    commands += (commands.empty() ? "" : ", ") + command->get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const std::string_view before = i > 1 ? std::string_view(argv[i - 1]) : "";
    if (word.starts_with("-") || before == "--venv" || before == "--torch")
      continue;
    return "unknown command '" + std::string(word) + "'; the commands are: " + commands;
  }
  return "no command given; the commands are: " + commands + " (inductor-fuzz COMMAND --help)";
}

// "create directories" from "filesystem error: cannot create directories: Read-only ...".
std::string FilesystemAction(const std::filesystem::filesystem_error &error) {
  const std::string what = error.what();
  const auto from = what.find("cannot ");
  const auto to = what.find(':', from);
  if (from == std::string::npos || to == std::string::npos)
    return "use";
  return what.substr(from + 7, to - from - 7);
}

} // namespace

int RunCommandLine(int argc, char **argv) {
  CLI::App app{"inductor-fuzz: fuzzes the C++ that PyTorch Inductor generates for flex-attention "
               "masks, captures every generated translation unit with its exact compile command, "
               "and reports what breaks.\n"
               "Exit codes: 0 nothing found, 1 findings, 2 the tool could not do what was asked."};
  app.set_version_flag("--version", support::ToolVersion());
  app.require_subcommand(1);
  std::optional<std::filesystem::path> venv;
  app.add_option("--venv", venv,
                 "Python virtual environment with torch (default: $INDUCTOR_FUZZ_VENV, else the "
                 "project's .venv)");
  std::optional<std::string> torch_release;
  app.add_option("--torch", torch_release,
                 "The torch release to run on, by version (2.14.1, or 2.14 when one matches): "
                 "the project's .venv or a .venv-torch-VERSION from scripts/setup --with-torch")
      ->excludes("--venv");
  bool no_confine = false;
  app.add_flag("--no-confine", no_confine,
               "Run cases unconfined. By default a worker has no network and writes only under "
               "its case folders, since a case, a corpus and a capture are code (`doctor` says "
               "what this machine enforces); give this only for code you trust");

  std::vector<Command> commands;
  for (const AddCommand add : kCommands)
    commands.push_back(add(app));

  // Everything after `--` belongs to the command (compile flags, a program), not to the parser.
  int parsed_argc = argc;
  std::vector<std::string> after_separator;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      after_separator.assign(argv + i + 1, argv + argc);
      parsed_argc = i;
      break;
    }

  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::CallForHelp &) {
    std::cout << app.help();
    return support::kExitNothingFound;
  } catch (const CLI::CallForVersion &) {
    std::cout << support::ToolVersion() << "\n";
    return support::kExitNothingFound;
  } catch (const CLI::ParseError &error) {
    if (app.get_subcommands().empty()) { // no command given, or one that does not exist
      std::cerr << "inductor-fuzz: " << UnknownCommandMessage(app, parsed_argc, argv) << "\n";
      return support::kExitCannotRun;
    }
    std::cerr << "inductor-fuzz: " << error.what() << " (see inductor-fuzz --help)\n";
    return support::kExitCannotRun;
  }

  try {
    support::ToolPaths paths = support::LocateToolPaths(venv);
    if (torch_release)
      paths.venv = support::ResolveTorchEnvironment(*torch_release, paths.project_root).venv;
    paths.confine_workers = !no_confine;
    const Invocation invocation{.paths = paths,
                                .command_line = JoinArguments(argc, argv),
                                .after_separator = after_separator,
                                .out = std::cout};
    for (const auto &command : commands)
      if (*command.app)
        return command.run(invocation);
  } catch (const support::InputError &error) {
    std::cerr << "inductor-fuzz: " << error.what() << "\n";
  } catch (const support::WorkerStartError &error) {
    std::cerr << "inductor-fuzz: " << error.what() << "\n";
  } catch (const std::filesystem::filesystem_error &error) {
    // The machine refused a file operation (a read-only or full disk, a folder of another
    // user's): the user's to fix, not an internal error.
    std::cerr << "inductor-fuzz: cannot " << FilesystemAction(error) << " "
              << error.path1().string() << ": " << error.code().message()
              << "; make it writable, free space or pick another folder\n";
  } catch (const std::exception &error) {
    std::cerr << "inductor-fuzz: internal error: " << error.what() << "\n";
  }
  return support::kExitCannotRun;
}

} // namespace cli
