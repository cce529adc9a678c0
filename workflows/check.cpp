#include "workflows/check.h"

#include "corpus/run_record.h"
#include "corpus/sarif.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "parsers/clang_analysis.h"
#include "parsers/flag_translation.h"
#include "parsers/gcc_checks.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <unistd.h>

namespace workflows {
namespace {

using nlohmann::json;

constexpr std::size_t kLargestSource = 16 << 20;

// A captured command with the paths its sources go by: captured and stored, absolute.
struct CommandEntry {
  corpus::CompileCommand command;
  std::set<std::string> source_paths;
};

std::vector<CommandEntry> LoadCommands(const std::filesystem::path &path) {
  std::vector<CommandEntry> entries;
  for (auto &command : corpus::ReadCommandsFile(path)) {
    CommandEntry entry{.command = std::move(command)};
    for (const auto &source : entry.command.sources) {
      entry.source_paths.insert(source.captured_path);
      entry.source_paths.insert(std::filesystem::weakly_canonical(source.stored).string());
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<std::string> DefaultArguments(const support::ToolPaths &paths) {
  const auto torch = paths.venv / "lib/python3.11/site-packages/torch/include";
  return {"-std=c++20",
          "-I",
          torch.string(),
          "-I",
          (torch / "torch/csrc/api/include").string(),
          "-I",
          "/usr/include/python3.11"};
}

std::string Where(const parsers::SourcePosition &p) {
  return fmt::format("{}:{}:{}", p.file, p.line, p.column);
}

json Sarif(const std::vector<parsers::Conflict> &findings) {
  std::vector<corpus::SarifResult> results;
  const auto location = [](const parsers::SourcePosition &p) {
    return corpus::SarifLocation{
        .path = p.file, .line = std::max(1u, p.line), .column = std::max(1u, p.column)};
  };
  for (const auto &finding : findings) {
    corpus::SarifResult result{.rule = finding.check,
                               .level = finding.severity == "error" ? "error" : "warning",
                               .message = finding.message,
                               .locations = {location(finding.location)},
                               .signature = corpus::Signature(parsers::ToFinding(finding))};
    if (finding.previous.line)
      result.related.push_back(location(finding.previous));
    results.push_back(std::move(result));
  }
  return corpus::SarifLog(support::ToolVersion(), results);
}

// A TU our Clang accepts but a gcc of the matrix rejects: gcc's own JSON diagnostics, its
// declaration conflicts classified with the checks Clang's would have fed.
std::vector<parsers::Conflict> GccConflicts(const fuzzer::matrix::TuBuild &build,
                                            const parsers::TranslationUnitReport &report) {
  std::vector<std::string> argv = build.argv;
  argv.insert(argv.begin() + 1, {"-fsyntax-only", "-fdiagnostics-format=json"});
  const auto run = support::RunCommand(argv, {}, std::chrono::minutes(10));
  auto conflicts = parsers::ClassifyGccDiagnostics(parsers::ParseGccJson(run.output),
                                                   build.compiler, report.functions);
  for (auto &conflict : conflicts)
    for (auto *position : {&conflict.location, &conflict.previous})
      if (!position->file.empty() && std::filesystem::weakly_canonical(position->file) ==
                                         std::filesystem::weakly_canonical(report.source_path))
        position->file = report.display_name;
  return conflicts;
}

bool HasError(const parsers::TranslationUnitReport &report) {
  return std::any_of(report.findings.begin(), report.findings.end(),
                     [](const parsers::Conflict &finding) { return finding.severity == "error"; });
}

} // namespace

int Check(const CheckOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  if (options.files.empty())
    throw support::InputError("check needs at least one C++ file");
  if (options.format != "text" && options.format != "json" && options.format != "sarif")
    throw support::InputError(
        fmt::format("--format {} is unknown; use text, json or sarif", options.format));
  for (const auto &file : options.files) {
    if (file.extension() == ".json")
      throw support::InputError(fmt::format(
          "{} is JSON, not C++: give a run's commands with --commands {} and its sources as files",
          file.string(), file.string()));
    support::ReadTextFile(file, "C++ source", kLargestSource);
  }
  const auto commands =
      options.commands ? LoadCommands(*options.commands) : std::vector<CommandEntry>{};

  parsers::Analyzer analyzer(
      {.prefix_cache_dir = options.cache_dir.value_or(DefaultPrefixCacheDir()),
       .use_prefix_cache = options.prefix_cache,
       .report_shadowing = options.shadowing});
  std::vector<parsers::TranslationUnitReport> reports;
  std::map<const CommandEntry *, std::vector<std::size_t>> by_command;
  for (const auto &file : options.files) {
    parsers::TranslationUnitInput input{.path = std::filesystem::absolute(file),
                                        .display_name = file.string()};
    const CommandEntry *entry = nullptr;
    const auto canonical = std::filesystem::weakly_canonical(file).string();
    for (const auto &candidate : commands)
      if (candidate.source_paths.contains(canonical) ||
          candidate.source_paths.contains(std::filesystem::absolute(file).string()))
        entry = &candidate;
    if (options.commands && !entry)
      throw support::InputError(fmt::format("{} is not a source of any command in {}",
                                            file.string(), options.commands->string()));
    if (entry) {
      input.clang_args = parsers::TranslateForClang(entry->command.argv).clang_args;
    } else if (!options.compile_args.empty()) {
      std::vector<std::string> argv = {"c++"};
      argv.insert(argv.end(), options.compile_args.begin(), options.compile_args.end());
      input.clang_args = parsers::TranslateForClang(argv).clang_args;
    } else {
      input.clang_args = DefaultArguments(paths);
    }
    reports.push_back(analyzer.Analyze(input));
    if (entry)
      by_command[entry].push_back(reports.size() - 1);
  }

  std::vector<parsers::Conflict> findings;
  for (const auto &report : reports)
    findings.insert(findings.end(), report.findings.begin(), report.findings.end());
  // Units linked together: every file (--linked), or the sources whose objects one captured
  // command links.
  std::vector<std::vector<std::size_t>> groups;
  if (options.linked) {
    groups.emplace_back();
    for (std::size_t i = 0; i < reports.size(); ++i)
      groups.back().push_back(i);
  }
  for (const auto &link : commands) {
    std::vector<std::size_t> group;
    for (const auto &input : link.command.Inputs())
      for (const auto &[compile, indices] : by_command)
        if (!compile->command.Output().empty() && compile->command.Output() == input)
          group.insert(group.end(), indices.begin(), indices.end());
    if (group.size() > 1)
      groups.push_back(group);
  }
  for (const auto &group : groups) {
    std::vector<parsers::TranslationUnitReport> members;
    for (auto index : group)
      members.push_back(reports[index]);
    const auto cross = parsers::CompareLinkedUnits(members);
    findings.insert(findings.end(), cross.begin(), cross.end());
  }

  // With --compilers, every file is also built on each compiler with its own command.
  json divergences = json::array();
  if (!options.compilers.empty()) {
    std::vector<fuzzer::matrix::CapturedTu> tus;
    for (const auto &file : options.files) {
      fuzzer::matrix::CapturedTu tu{.label = file.string(),
                                    .source = std::filesystem::absolute(file)};
      const auto canonical = std::filesystem::weakly_canonical(file).string();
      for (const auto &candidate : commands)
        if (candidate.source_paths.contains(canonical))
          tu.argv = candidate.command.argv;
      if (tu.argv.empty()) {
        tu.argv = {"c++"};
        tu.argv.insert(tu.argv.end(), options.compile_args.begin(), options.compile_args.end());
        tu.argv.insert(tu.argv.end(), {"-c", tu.source.string(), "-o", "check.o"});
      }
      tus.push_back(std::move(tu));
    }
    const support::ScratchDir scratch("check");
    const auto matrix = fuzzer::matrix::BuildMatrix(
        tus,
        {.compilers = fuzzer::matrix::DiscoverCompilers(options.compilers),
         .work_dir = scratch.path()},
        {});
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      if (HasError(reports[i]))
        continue; // Clang already reports this TU
      for (const auto &build : matrix[i].builds)
        if (!build.built && !build.timed_out && !build.compiler_crashed &&
            parsers::FamilyOfCompiler(build.compiler) == parsers::CompilerFamily::kGcc) {
          const auto conflicts = GccConflicts(build, reports[i]);
          findings.insert(findings.end(), conflicts.begin(), conflicts.end());
        }
    }
    for (const auto &row : matrix)
      if (auto finding = fuzzer::matrix::DivergenceFinding(row)) {
        json divergence = finding->detail;
        divergence["kind"] = corpus::KindName(finding->kind);
        divergence["signature"] = corpus::Signature(*finding);
        divergences.push_back(divergence);
      }
  }

  // Errors are findings; warnings (shadowed-local) are counted apart and change no exit code.
  std::size_t errors = divergences.size(), warnings = 0;
  for (const auto &finding : findings)
    (finding.severity == "error" ? errors : warnings) += 1;
  if (options.format == "json") {
    json document = {{"tool_version", support::ToolVersion()},
                     {"findings", json::array()},
                     {"compiler_divergence", divergences},
                     {"files", json::array()}};
    for (const auto &finding : findings)
      document["findings"].push_back(parsers::ConflictToJson(finding));
    for (const auto &report : reports)
      document["files"].push_back({{"file", report.display_name},
                                   {"seconds", report.seconds},
                                   {"precompiled_prefix", report.used_prefix_cache},
                                   {"fatal_errors", report.fatal_errors},
                                   {"features", report.features}});
    document["errors"] = errors;
    document["warnings"] = warnings;
    out << document.dump(2) << "\n";
  } else if (options.format == "sarif") {
    out << Sarif(findings).dump(2) << "\n";
  } else {
    for (const auto &finding : findings) {
      out << fmt::format("{}: {}: {} [{}{}] '{}'{}{}{}{}\n", Where(finding.location),
                         finding.severity, finding.kind, finding.check,
                         finding.clang_diagnostic.empty() ? "" : " " + finding.clang_diagnostic,
                         finding.name, finding.type.empty() ? "" : " (" + finding.type + ")",
                         finding.kernel.empty() ? "" : " in " + finding.kernel,
                         finding.scope == "function" ? " (function scope)" : "",
                         finding.reported_by.empty() ? "" : " reported by " + finding.reported_by);
      if (finding.origin == "torch-headers")
        out << "  in torch's own headers: points at the environment, not the kernel\n";
      if (finding.check == "unclassified-error")
        out << "  " << finding.message << "\n";
      if (finding.previous.line)
        out << fmt::format("{}: note: previous declaration{}\n", Where(finding.previous),
                           finding.previous_type.empty() ? "" : " (" + finding.previous_type + ")");
    }
    for (const auto &divergence : divergences)
      out << fmt::format("{}: error: compiler-divergence: builds with {}, fails with {}\n",
                         divergence["tu"].get<std::string>(),
                         fmt::join(divergence["built_by"].get<std::vector<std::string>>(), ", "),
                         fmt::join(divergence["failed_on"].get<std::vector<std::string>>(), ", "));
    if (options.features)
      for (const auto &report : reports)
        out << fmt::format("{}: {} codegen feature(s)\n  {}\n", report.display_name,
                           report.features.size(), fmt::join(report.features, "\n  "));
    out << fmt::format("{} file(s), {} finding(s), {} warning(s)\n", reports.size(), errors,
                       warnings);
  }
  for (const auto &report : reports)
    if (!report.fatal_errors.empty())
      throw support::InputError(fmt::format("could not analyse {}: {}", report.display_name,
                                            report.fatal_errors.front()));
  return errors ? 1 : 0;
}

std::filesystem::path DefaultPrefixCacheDir() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "inductor-fuzz/prefixes";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache/inductor-fuzz/prefixes";
  return std::filesystem::temp_directory_path() / "inductor-fuzz-prefixes";
}

} // namespace workflows
