// How much of Clang's redeclaration family `check` knows, and whether it agrees with Clang on
// the fixtures: every line where a plain `clang++-19 -fsyntax-only` reports an error has a
// finding, and no finding is where Clang reports no error.
// Usage: build/bench_redeclaration_coverage
#include "bench/fixture_units.h"
#include "parsers/clang_analysis.h"
#include "parsers/clang_checks.h"
#include "parsers/diagnostics.h"
#include "support/child_process.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <unistd.h>

namespace {

using Lines = std::set<std::pair<std::string, unsigned>>; // (file name, line)

// The `id=` every annotated fixture pins, with how many fixtures pin it.
std::map<std::string, int> PinnedIds() {
  static const std::regex id(R"(//\s*EXPECT:.*\bid=(\S+))");
  std::map<std::string, int> pinned;
  for (const char *folder : {"broken", "clean"})
    for (const auto &unit : bench::FixtureUnits(folder, "", /*with_cuda=*/true)) {
      std::ifstream in(unit.source);
      std::set<std::string> ids;
      std::smatch match;
      for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, match, id))
          ids.insert(match[1]);
      for (const auto &name : ids)
        ++pinned[name];
    }
  return pinned;
}

// A Clang warning we report at error level on purpose (a macro defined again differently).
bool RegisteredWarning(const std::string &clang_name) {
  for (const auto &check : parsers::ClangChecks())
    if (check.clang_name == clang_name)
      return !check.clang_name.starts_with("err_");
  return false;
}

Lines PlainClangErrorLines(const bench::FixtureUnit &unit) {
  std::vector<std::string> argv = {
      "clang++-19",           "-fsyntax-only", "-fno-caret-diagnostics",
      "-Wno-unknown-pragmas", "-isystem",      parsers::OmpIncludeDirectory()};
  argv.insert(argv.end(), unit.args.begin(), unit.args.end());
  argv.push_back(unit.source.string());
  const auto run = support::RunCommand(argv, {}, std::chrono::minutes(5), 16 << 20);
  Lines lines;
  for (const auto &diagnostic :
       parsers::ParseCompilerText(run.output, parsers::CompilerFamily::kClang))
    if (diagnostic.severity == "error" || diagnostic.severity == "fatal error")
      lines.insert({std::filesystem::path(diagnostic.location.file).filename().string(),
                    diagnostic.location.line});
  return lines;
}

} // namespace

int main() {
  const auto pinned = PinnedIds();
  std::size_t registered_errors = 0, registered_warnings = 0, with_fixture = 0;
  for (const auto &check : parsers::ClangChecks()) {
    (check.clang_name.starts_with("err_") ? registered_errors : registered_warnings) += 1;
    with_fixture +=
        check.clang_name.starts_with("err_") && pinned.contains(std::string(check.clang_name));
  }
  const std::size_t left_out = parsers::LeftOutRedeclarationDiagnostics().size();
  fmt::print("redeclaration family: {} Clang error IDs; {} registered under a check, {} left out "
             "(docs/redeclaration-checks.md); {} of the registered have a fixture. Also "
             "registered: {} warning IDs (macro redefinition, shadowed local).\n",
             registered_errors + left_out, registered_errors, left_out, with_fixture,
             registered_warnings);

  const auto cache = std::filesystem::temp_directory_path() /
                     fmt::format("inductor-fuzz-bench-coverage-{}", ::getpid());
  parsers::Analyzer analyzer({.prefix_cache_dir = cache});
  std::size_t files = 0, clang_lines = 0, covered = 0, extra = 0;
  for (const char *folder : {"broken", "clean"})
    for (const auto &unit : bench::FixtureUnits(folder)) {
      const auto clang = PlainClangErrorLines(unit);
      Lines found;
      for (const auto &finding :
           analyzer.Analyze({.path = unit.source, .clang_args = unit.args}).findings)
        if (finding.severity == "error" && !RegisteredWarning(finding.clang_diagnostic))
          found.insert({std::filesystem::path(finding.location.file).filename().string(),
                        finding.location.line});
      ++files;
      clang_lines += clang.size();
      for (const auto &line : clang)
        if (found.contains(line))
          ++covered;
        else
          fmt::print("  no finding at {}:{} where Clang reports an error\n", line.first,
                     line.second);
      for (const auto &line : found)
        if (!clang.contains(line)) {
          ++extra;
          fmt::print("  a finding at {}:{} where Clang reports no error\n", line.first,
                     line.second);
        }
    }
  fmt::print("fixtures against clang++-19 -fsyntax-only: {} files, {} lines with a Clang error, "
             "{} of them with a check finding; {} findings where Clang reports no error\n",
             files, clang_lines, covered, extra);
  std::filesystem::remove_all(cache);
  return covered == clang_lines && extra == 0 ? 0 : 1;
}
