#include "workflows/check.h"

#include "corpus/run_record.h"
#include "corpus/sarif.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "parsers/clang_analysis.h"
#include "parsers/flag_translation.h"
#include "parsers/gcc_checks.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/tool_paths.h"
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
    // Without the capture's own headers a parse fails on every include: a false finding.
    if (!command.unavailable.empty())
      throw support::InputError(command.unavailable + "; install them, then check again");
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

// file:line:column, or file:line where the compiler gives no column (nvcc).
std::string Where(const parsers::SourcePosition &p) {
  return p.column ? fmt::format("{}:{}:{}", p.file, p.line, p.column)
                  : fmt::format("{}:{}", p.file, p.line);
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

// A compiler's findings name the TU as check's own do.
std::vector<parsers::Conflict> NamedAsTheReport(std::vector<parsers::Conflict> conflicts,
                                                const parsers::TranslationUnitReport &report) {
  for (auto &conflict : conflicts)
    for (auto *position : {&conflict.location, &conflict.previous})
      if (!position->file.empty() && std::filesystem::weakly_canonical(position->file) ==
                                         std::filesystem::weakly_canonical(report.source_path))
        position->file = report.display_name;
  return conflicts;
}

// A TU our Clang accepts but a gcc or nvcc of the matrix rejects: the compiler's own
// diagnostics (gcc's as JSON, nvcc's text), its declaration conflicts classified with the checks
// Clang's would have fed.
std::vector<parsers::Conflict> CompilerConflicts(const fuzzer::matrix::TuBuild &build,
                                                 parsers::CompilerFamily family,
                                                 const parsers::TranslationUnitReport &report) {
  std::vector<std::string> argv = build.argv;
  if (family == parsers::CompilerFamily::kNvcc) {
    const auto run = support::RunCommand(argv, {}, std::chrono::minutes(10));
    return NamedAsTheReport(
        parsers::ClassifyNvccDiagnostics(parsers::ParseCompilerText(run.output, family),
                                         build.compiler, report.functions),
        report);
  }
  argv.insert(argv.begin() + 1, {"-fsyntax-only", "-fdiagnostics-format=json"});
  const auto run = support::RunCommand(argv, {}, std::chrono::minutes(10));
  return NamedAsTheReport(parsers::ClassifyGccDiagnostics(parsers::ParseGccJson(run.output),
                                                          build.compiler, report.functions),
                          report);
}

bool HasError(const parsers::TranslationUnitReport &report) {
  return std::any_of(report.findings.begin(), report.findings.end(),
                     [](const parsers::Conflict &finding) { return finding.severity == "error"; });
}

// A folder `capture` or `run-case` wrote (its commands.json and the sources it lists) stands
// for those sources, each with its own command; any other folder is refused in one line.
CheckOptions WithCaptureFolders(CheckOptions options) {
  std::vector<std::filesystem::path> files;
  for (const auto &file : options.files) {
    if (!std::filesystem::is_directory(file)) {
      files.push_back(file);
      continue;
    }
    const auto commands = file / "commands.json";
    if (!std::filesystem::is_regular_file(commands))
      throw support::InputError(fmt::format(
          "{} is a folder without a commands.json: give its C++ files, or a folder `capture` or "
          "`run-case` wrote",
          file.string()));
    if (options.commands && std::filesystem::weakly_canonical(*options.commands) !=
                                std::filesystem::weakly_canonical(commands))
      throw support::InputError(fmt::format(
          "{} brings its own commands.json and {} was given too: check one capture at a time",
          file.string(), options.commands->string()));
    options.commands = commands;
    std::set<std::string> listed;
    for (const auto &command : corpus::ReadCommandsFile(commands))
      for (const auto &source : command.sources)
        if (listed.insert(source.stored.string()).second)
          files.push_back(source.stored);
    if (listed.empty())
      throw support::InputError(fmt::format(
          "{} lists no source: the run it comes from compiled nothing", commands.string()));
  }
  options.files = std::move(files);
  return options;
}

// Rejects unusable input before any analysis starts, so a typo costs no Clang run.
void ValidateInputs(const CheckOptions &options) {
  if (options.files.empty())
    throw support::InputError("check needs at least one C++ or CUDA file");
  for (const auto &file : options.files) {
    if (file.extension() == ".json")
      throw support::InputError(fmt::format(
          "{} is JSON, not C++: give a run's commands with --commands {} and its sources as files",
          file.string(), file.string()));
    support::ReadTextFile(file, "C++ source", kLargestSource);
    // A .cu without a CUDA installation to parse it with is refused here, before any parse.
    parsers::AnalysisBaseArguments(options.shadowing, file);
  }
}

// The captured command that compiled `file`; the last one wins when several list it.
const CommandEntry *CommandCompiling(const std::filesystem::path &file,
                                     const std::vector<CommandEntry> &commands) {
  const CommandEntry *entry = nullptr;
  const auto canonical = std::filesystem::weakly_canonical(file).string();
  for (const auto &candidate : commands)
    if (candidate.source_paths.contains(canonical) ||
        candidate.source_paths.contains(std::filesystem::absolute(file).string()))
      entry = &candidate;
  return entry;
}

// Clang sees a file with the flags it was really built with: its captured command, else the
// flags after `--`, else torch's include paths.
std::vector<std::string> ClangArguments(const CommandEntry *entry, const CheckOptions &options,
                                        const support::ToolPaths &paths) {
  if (entry)
    return parsers::TranslateForClang(entry->command.argv).clang_args;
  if (!options.compile_args.empty()) {
    std::vector<std::string> argv = {"c++"};
    argv.insert(argv.end(), options.compile_args.begin(), options.compile_args.end());
    return parsers::TranslateForClang(argv).clang_args;
  }
  return DefaultArguments(paths);
}

struct AnalysedFiles {
  std::vector<parsers::TranslationUnitReport> reports;
  // Indices into `reports` per captured compile command: a link command's inputs name these.
  std::map<const CommandEntry *, std::vector<std::size_t>> by_command;
};

AnalysedFiles AnalyseFiles(const CheckOptions &options, const support::ToolPaths &paths,
                           const std::vector<CommandEntry> &commands) {
  parsers::Analyzer analyzer(
      {.prefix_cache_dir = options.cache_dir.value_or(DefaultPrefixCacheDir()),
       .use_prefix_cache = options.prefix_cache,
       .report_shadowing = options.shadowing});
  AnalysedFiles analysed;
  for (const auto &file : options.files) {
    parsers::TranslationUnitInput input{.path = std::filesystem::absolute(file),
                                        .display_name = file.string()};
    const CommandEntry *entry = CommandCompiling(file, commands);
    if (options.commands && !entry)
      throw support::InputError(fmt::format("{} is not a source of any command in {}",
                                            file.string(), options.commands->string()));
    input.clang_args = ClangArguments(entry, options, paths);
    analysed.reports.push_back(analyzer.Analyze(input));
    if (entry)
      analysed.by_command[entry].push_back(analysed.reports.size() - 1);
  }
  return analysed;
}

// Units linked together: every file (--linked), or the sources whose objects one captured
// command links.
std::vector<std::vector<std::size_t>>
LinkedGroups(const CheckOptions &options, const std::vector<CommandEntry> &commands,
             const std::map<const CommandEntry *, std::vector<std::size_t>> &by_command,
             std::size_t report_count) {
  std::vector<std::vector<std::size_t>> groups;
  if (options.linked) {
    groups.emplace_back();
    for (std::size_t i = 0; i < report_count; ++i)
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
  return groups;
}

void AppendCrossUnitFindings(const std::vector<std::vector<std::size_t>> &groups,
                             const std::vector<parsers::TranslationUnitReport> &reports,
                             std::vector<parsers::Conflict> &findings) {
  for (const auto &group : groups) {
    std::vector<parsers::TranslationUnitReport> members;
    for (auto index : group)
      members.push_back(reports[index]);
    const auto cross = parsers::CompareLinkedUnits(members);
    findings.insert(findings.end(), cross.begin(), cross.end());
  }
}

// Each compiler of the matrix builds a file with its captured command, which matches only by
// canonical path; without one, `c++` with the flags after `--`.
fuzzer::matrix::CapturedTu MatrixTu(const std::filesystem::path &file, const CheckOptions &options,
                                    const std::vector<CommandEntry> &commands) {
  fuzzer::matrix::CapturedTu tu{.label = file.string(), .source = std::filesystem::absolute(file)};
  const auto canonical = std::filesystem::weakly_canonical(file).string();
  for (const auto &candidate : commands)
    if (candidate.source_paths.contains(canonical))
      tu.argv = candidate.command.argv;
  if (tu.argv.empty()) {
    tu.argv = {"c++"};
    tu.argv.insert(tu.argv.end(), options.compile_args.begin(), options.compile_args.end());
    tu.argv.insert(tu.argv.end(), {"-c", tu.source.string(), "-o", "check.o"});
  }
  return tu;
}

void AppendCompilerFindings(const std::vector<fuzzer::matrix::TuMatrix> &matrix,
                            const std::vector<fuzzer::matrix::Compiler> &compilers,
                            const std::vector<parsers::TranslationUnitReport> &reports,
                            std::vector<parsers::Conflict> &findings) {
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    if (HasError(reports[i]))
      continue; // Clang already reports this TU
    for (std::size_t column = 0; column < compilers.size(); ++column) {
      const auto &build = matrix[i].builds[column];
      const auto family = compilers[column].family;
      if (!build.built && !build.timed_out && !build.compiler_crashed &&
          family != parsers::CompilerFamily::kClang) {
        const auto conflicts = CompilerConflicts(build, family, reports[i]);
        findings.insert(findings.end(), conflicts.begin(), conflicts.end());
      }
    }
  }
}

json Divergences(const std::vector<fuzzer::matrix::TuMatrix> &matrix) {
  json divergences = json::array();
  for (const auto &row : matrix)
    if (auto finding = fuzzer::matrix::DivergenceFinding(row)) {
      json divergence = finding->detail;
      divergence["kind"] = corpus::KindName(finding->kind);
      divergence["signature"] = corpus::Signature(*finding);
      divergences.push_back(divergence);
    }
  return divergences;
}

// With --compilers, every file is also built on each compiler with its own command. The gcc
// diagnostics rerun the matrix's commands, so they run while its scratch folder exists.
json CompareOnCompilers(const CheckOptions &options, const std::vector<CommandEntry> &commands,
                        const std::vector<parsers::TranslationUnitReport> &reports,
                        std::vector<parsers::Conflict> &findings) {
  std::vector<fuzzer::matrix::CapturedTu> tus;
  for (const auto &file : options.files)
    tus.push_back(MatrixTu(file, options, commands));
  const support::ScratchDir scratch("check");
  const auto compilers = fuzzer::matrix::DiscoverCompilers(options.compilers);
  const auto matrix =
      fuzzer::matrix::BuildMatrix(tus, {.compilers = compilers, .work_dir = scratch.path()}, {});
  AppendCompilerFindings(matrix, compilers, reports, findings);
  return Divergences(matrix);
}

struct CheckResults {
  std::vector<parsers::TranslationUnitReport> reports;
  std::vector<parsers::Conflict> findings;
  json divergences = json::array();
  // Errors are findings; warnings (shadowed-local) are counted apart and change no exit code.
  std::size_t errors = 0, warnings = 0;
};

void CountSeverities(CheckResults &results) {
  results.errors = results.divergences.size();
  results.warnings = 0;
  for (const auto &finding : results.findings)
    (finding.severity == "error" ? results.errors : results.warnings) += 1;
}

void WriteJson(const CheckResults &results, std::ostream &out) {
  json document = {{"tool_version", support::ToolVersion()},
                   {"findings", json::array()},
                   {"compiler_divergence", results.divergences},
                   {"files", json::array()}};
  for (const auto &finding : results.findings)
    document["findings"].push_back(parsers::ConflictToJson(finding));
  for (const auto &report : results.reports)
    document["files"].push_back({{"file", report.display_name},
                                 {"seconds", report.seconds},
                                 {"precompiled_prefix", report.used_prefix_cache},
                                 {"fatal_errors", report.fatal_errors},
                                 {"features", report.features}});
  document["errors"] = results.errors;
  document["warnings"] = results.warnings;
  out << document.dump(2) << "\n";
}

void WriteTextFinding(const parsers::Conflict &finding, std::ostream &out) {
  out << fmt::format("{}: {}: {} [{}{}] '{}'{}{}{}{}\n", Where(finding.location), finding.severity,
                     finding.kind, finding.check,
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

void WriteText(const CheckOptions &options, const CheckResults &results, std::ostream &out) {
  for (const auto &finding : results.findings)
    WriteTextFinding(finding, out);
  for (const auto &divergence : results.divergences)
    out << fmt::format("{}: error: compiler-divergence: builds with {}, fails with {}\n",
                       divergence["tu"].get<std::string>(),
                       fmt::join(divergence["built_by"].get<std::vector<std::string>>(), ", "),
                       fmt::join(divergence["failed_on"].get<std::vector<std::string>>(), ", "));
  if (options.features)
    for (const auto &report : results.reports)
      out << fmt::format("{}: {} codegen feature(s)\n  {}\n", report.display_name,
                         report.features.size(), fmt::join(report.features, "\n  "));
  out << fmt::format("{} file(s), {} finding(s), {} warning(s)\n", results.reports.size(),
                     results.errors, results.warnings);
}

// check's report formats, one row each (`--format NAME`); the first is the default.
struct CheckFormat {
  std::string_view name;
  void (*write)(const CheckOptions &options, const CheckResults &results, std::ostream &out);
};

constexpr CheckFormat kCheckFormats[] = {
    {"text", &WriteText},
    {"json", [](const CheckOptions &, const CheckResults &results,
                std::ostream &out) { WriteJson(results, out); }},
    {"sarif", [](const CheckOptions &, const CheckResults &results,
                 std::ostream &out) { out << Sarif(results.findings).dump(2) << "\n"; }},
};

const CheckFormat &FormatNamed(const std::string &name) {
  std::vector<std::string_view> names;
  for (const auto &format : kCheckFormats) {
    if (format.name == name)
      return format;
    names.push_back(format.name);
  }
  throw support::InputError(
      fmt::format("--format {} is unknown; use {}", name, fmt::join(names, ", ")));
}

// Thrown after the report is written, so the findings of the files that did parse still show.
void ThrowOnFatalErrors(const std::vector<parsers::TranslationUnitReport> &reports) {
  for (const auto &report : reports)
    if (!report.fatal_errors.empty())
      throw support::InputError(fmt::format("could not analyse {}: {}", report.display_name,
                                            report.fatal_errors.front()));
}

} // namespace

int Check(const CheckOptions &given, const support::ToolPaths &paths, std::ostream &out) {
  const CheckOptions options = WithCaptureFolders(given);
  ValidateInputs(options);
  const CheckFormat &format = FormatNamed(options.format); // before any Clang run
  const auto commands =
      options.commands ? LoadCommands(*options.commands) : std::vector<CommandEntry>{};
  auto analysed = AnalyseFiles(options, paths, commands);

  CheckResults results{.reports = std::move(analysed.reports)};
  for (const auto &report : results.reports)
    results.findings.insert(results.findings.end(), report.findings.begin(), report.findings.end());
  AppendCrossUnitFindings(
      LinkedGroups(options, commands, analysed.by_command, results.reports.size()), results.reports,
      results.findings);
  if (!options.compilers.empty())
    results.divergences = CompareOnCompilers(options, commands, results.reports, results.findings);
  CountSeverities(results);

  format.write(options, results, out);
  ThrowOnFatalErrors(results.reports);
  return results.errors ? 1 : 0;
}

std::filesystem::path DefaultPrefixCacheDir() { return fuzzer::campaign::SharedAnalysisPrefixes(); }

} // namespace workflows
