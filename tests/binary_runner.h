#pragma once

#include "support/child_process.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace test_support {

struct BinaryRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs build/inductor-fuzz as a user would, with stdout and stderr kept apart; stdout is cut
// at `output_limit` bytes.
inline BinaryRun RunInductorFuzz(const std::vector<std::string> &arguments,
                                 std::chrono::seconds timeout = std::chrono::seconds(900),
                                 const std::map<std::string, std::string> &environment = {},
                                 std::size_t output_limit = 1 << 20) {
  const auto err_file = std::filesystem::temp_directory_path() /
                        ("inductor-fuzz-test-stderr-" + std::to_string(::getpid()));
  std::filesystem::remove(err_file);
  std::vector<std::string> argv = {INDUCTOR_FUZZ_BINARY};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  support::SpawnOptions options;
  options.stderr_file = err_file;
  options.environment = environment;
  const support::CommandResult result = support::RunCommand(argv, options, timeout, output_limit);
  std::stringstream err;
  err << std::ifstream(err_file).rdbuf();
  std::filesystem::remove(err_file);
  return {result.status.exit_code.value_or(-1), result.output, err.str()};
}

} // namespace test_support
