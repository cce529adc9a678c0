#include "workflows/reduce_source_input.h"

#include "corpus/finding.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "fuzzer/matrix/compiler_flags.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "parsers/clang_analysis.h"
#include "parsers/diagnostics.h"
#include "parsers/flag_translation.h"
#include "reducers/source/compile_log.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "workflows/check.h"
#include "workflows/reduce_source.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

namespace workflows {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kSourceLimit = 16u << 20;

// Clang arguments for a TU of Inductor's whose command is unknown: the venv's torch headers.
std::vector<std::string> DefaultInductorClangArgs(const support::ToolPaths &paths) {
  const fs::path torch = paths.venv / "lib" / "python3.11" / "site-packages" / "torch";
  return {"-x",
          "c++",
          "-std=c++20",
          "-fopenmp",
          "-DC10_USING_CUSTOM_GENERATED_MACROS",
          "-I" + (torch / "include").string(),
          "-I" + (torch / "include" / "torch" / "csrc" / "api" / "include").string(),
          "-I/usr/include/python3.11"};
}

// A compile command and its source: the compiler's first error if it fails, else our analysis.
void ChooseCommandTest(SourceInput &input, std::vector<std::string> command,
                       const fs::path &scratch, std::chrono::seconds timeout) {
  const std::size_t index = reducers::SourceArgument(command);
  command[index] = input.source.string();
  input.clang_args = parsers::TranslateForClang(command).clang_args;
  auto compiler = reducers::MakeCompilerDiagnosticTest(command, index, scratch / "test", timeout);
  if (const auto signature = compiler->Observe(input.text, 0)) {
    if (compiler->Observe("", 0) == signature)
      throw support::InputError(fmt::format(
          "the command fails the same way on an empty source ({}): the failure is in the "
          "command or the compiler, not in {}; fix the command",
          *signature, input.source.filename().string()));
    input.test = std::move(compiler);
    input.origin = SourceOrigin::kCompiler;
    return;
  }
  input.test = reducers::MakeStaticFindingTest(input.clang_args, "", scratch / "test",
                                               DefaultPrefixCacheDir());
  input.origin = SourceOrigin::kAnalysis;
}

// The matrix's own signature of a compiler divergence, so that a reduced TU keeps the finding's.
std::string DivergenceSignature(const std::vector<reducers::CompilerVerdict> &verdicts) {
  fuzzer::matrix::TuMatrix row;
  for (const auto &verdict : verdicts)
    row.builds.push_back({.compiler = verdict.compiler,
                          .built = verdict.built,
                          .compiler_crashed = verdict.crashed,
                          .first_error = verdict.first_error});
  const auto finding = fuzzer::matrix::DivergenceFinding(row);
  return finding ? corpus::Signature(*finding) : "";
}

// The matrix's signature of a runtime divergence: the first compiler is the reference.
std::string RuntimeSignature(const std::vector<reducers::ProgramVerdict> &verdicts) {
  fuzzer::matrix::TuMatrix row;
  for (const auto &verdict : verdicts)
    row.builds.push_back({.compiler = verdict.compiler,
                          .built = true,
                          .runtime = verdict.runtime,
                          .runtime_detail = json::object()});
  const auto finding = fuzzer::matrix::RuntimeDivergenceFinding(row);
  return finding ? corpus::Signature(*finding) : "";
}

// The TU's command rebuilt for each compiler the way the matrix rebuilds it (OpenMP for Clang,
// Inductor's own PCH dropped); the output goes nowhere the user keeps. `run`: the command links
// a program, and what its builds print is compared; else the compilers' verdicts are.
void ChooseDivergenceTest(SourceInput &input, const std::vector<std::string> &command,
                          const std::vector<std::string> &compilers, bool run,
                          const fs::path &scratch, std::chrono::seconds timeout) {
  if (compilers.size() < 2)
    throw support::InputError(
        "--compilers names the compilers that disagree: give two or more, as A,B");
  const auto openmp = fuzzer::matrix::FindOpenMp();
  std::vector<reducers::CompilerCommand> commands;
  for (const auto &name : compilers) {
    const auto compiler = fuzzer::matrix::DescribeCompiler(name);
    auto argv = fuzzer::matrix::CommandForCompiler(command, compiler, input.source,
                                                   scratch / "divergence-output.o", openmp);
    const bool compiles_only = std::find(argv.begin(), argv.end(), "-c") != argv.end();
    if (run && compiles_only)
      throw support::InputError("--run builds and runs a program: give a command that links "
                                "one (no -c), with the libraries it needs");
    if (!run && !compiles_only && std::find(argv.begin(), argv.end(), "-shared") == argv.end())
      argv.push_back("-c"); // a TU without main: compiled, not linked
    commands.push_back({.name = name, .argv = std::move(argv)});
  }
  input.clang_args = parsers::TranslateForClang(command).clang_args;
  if (run) {
    input.test = reducers::MakeRuntimeDivergenceTest(std::move(commands), scratch / "test", timeout,
                                                     RuntimeSignature);
    input.origin = SourceOrigin::kRuntimeDivergence;
  } else {
    input.test = reducers::MakeCompilerDivergenceTest(std::move(commands), scratch / "test",
                                                      timeout, DivergenceSignature);
    input.origin = SourceOrigin::kCompilerDivergence;
  }
}

// A compiler divergence the matrix stored (`matrix --json FILE`): the TU and each compiler's
// command from the record; `tu`: which row (default: the first with a divergence).
SourceInput FromMatrixRecord(const fs::path &file, const std::string &tu, const fs::path &scratch,
                             std::chrono::seconds timeout) {
  const auto record = corpus::ReadMatrixRecord(file);
  const corpus::MatrixRow *row = nullptr;
  std::string with_divergence;
  for (const auto &candidate : record.rows) {
    if (!candidate.divergence && !candidate.runtime_finding)
      continue;
    with_divergence += (with_divergence.empty() ? "" : ", ") + candidate.tu;
    if (!row && (tu.empty() || candidate.tu == tu))
      row = &candidate;
  }
  if (!row)
    throw support::InputError(
        with_divergence.empty()
            ? fmt::format("{} holds no divergence between compilers: nothing to reduce",
                          file.string())
            : fmt::format("{} has no TU {} with a divergence; those with one: {}", file.string(),
                          tu, with_divergence));
  if (!row->divergence)
    throw support::InputError(fmt::format(
        "{} differs at run time in {}: a Python module's replay is not a reducer test yet; give "
        "the kernel a main and use reduce --cpp FILE --compilers A,B --run -- COMMAND",
        row->tu, file.string()));
  SourceInput input;
  input.source = row->source;
  if (!fs::is_regular_file(input.source))
    throw support::InputError(
        fmt::format("{}'s source {} is gone: capture the program again, or give the TU with --cpp",
                    row->tu, input.source.string()));
  input.text = support::ReadTextFile(input.source, "C++ source", kSourceLimit);
  std::vector<reducers::CompilerCommand> commands;
  for (const auto &build : row->builds)
    if (auto argv = CommandOfBuild(build))
      commands.push_back({.name = build.compiler, .argv = std::move(*argv)});
  if (commands.empty())
    throw support::InputError(
        fmt::format("{} records no build of {}: re-run the matrix", file.string(), row->tu));
  input.clang_args = parsers::TranslateForClang(commands.front().argv).clang_args;
  input.test = reducers::MakeCompilerDivergenceTest(std::move(commands), scratch / "test", timeout,
                                                    DivergenceSignature);
  input.origin = SourceOrigin::kCompilerDivergence;
  input.expected_signature = corpus::Signature(*row->divergence);
  return input;
}

SourceInput FromCompileError(const reducers::LoggedCompileError &error, const std::string &where,
                             const fs::path &scratch, std::chrono::seconds timeout) {
  SourceInput input;
  input.source = error.command.at(reducers::SourceArgument(error.command));
  if (!fs::exists(input.source))
    throw support::InputError(fmt::format(
        "{} names {}, which is gone (Inductor's cache was cleared, or the log is from another "
        "machine): run the failing test again with TORCHINDUCTOR_CACHE_DIR set to a folder "
        "that is kept, or use reduce --script",
        where, input.source.string()));
  input.text = support::ReadTextFile(input.source, "C++ source", kSourceLimit);
  const auto family = parsers::FamilyOfCompiler(error.command[0]);
  input.expected_signature = corpus::Signature(
      parsers::CompileErrorFinding(family, parsers::ParseCompilerText(error.output, family)));
  ChooseCommandTest(input, error.command, scratch, timeout);
  input.origin = SourceOrigin::kLog;
  return input;
}

// The script runs with a fresh Inductor cache, kept in the output folder: every TU it compiles
// is there afterwards, with the one that failed.
SourceInput FromScript(const ReduceOptions &options, const fs::path &out_dir,
                       const fs::path &scratch, const support::ToolPaths &paths,
                       std::chrono::seconds timeout) {
  if (!fs::is_regular_file(*options.script))
    throw support::InputError(
        fmt::format("{} is not a file: give the failing Python script", options.script->string()));
  const fs::path cache = fs::absolute(out_dir / "inductor-cache");
  fs::create_directories(out_dir);
  fs::remove_all(cache);
  fs::create_directories(cache);
  std::cerr << fmt::format("reduce: running {} with {} and a fresh Inductor cache in {}\n",
                           options.script->string(), (paths.venv / "bin" / "python").string(),
                           cache.string());
  const auto run = support::RunCommand(
      {(paths.venv / "bin" / "python").string(), fs::absolute(*options.script).string()},
      {.environment = {{"TORCHINDUCTOR_CACHE_DIR", cache.string()}}}, timeout, 16u << 20);
  support::WriteFileAtomically(out_dir / "script-output.log", run.output);
  if (run.timed_out)
    throw support::InputError(fmt::format("{} did not finish in {} s: raise --case-timeout",
                                          options.script->string(), timeout.count()));
  if (run.status.Succeeded())
    throw support::InputError(
        fmt::format("{} passes (exit 0): nothing to reduce; give a script that fails",
                    options.script->string()));
  if (const auto error = reducers::FindCompileError(run.output))
    return FromCompileError(*error, options.script->string() + "'s output", scratch, timeout);
  // No compile error: a TU our analysis flags (what `check` finds), if any.
  const auto clang_args = DefaultInductorClangArgs(paths);
  parsers::Analyzer analyzer({.prefix_cache_dir = DefaultPrefixCacheDir()});
  for (const auto &entry : fs::recursive_directory_iterator(cache)) {
    if (!entry.is_regular_file() || !parsers::IsCppSource(entry.path().string()))
      continue;
    const auto report = analyzer.Analyze({.path = entry.path(), .clang_args = clang_args});
    for (const auto &conflict : report.findings)
      if (conflict.kind == "conflicting-declaration") {
        SourceInput input;
        input.source = entry.path();
        input.text = support::ReadTextFile(entry.path(), "C++ source", kSourceLimit);
        input.clang_args = clang_args;
        input.test = reducers::MakeStaticFindingTest(
            clang_args, corpus::Signature(parsers::ToFinding(conflict)), scratch / "test",
            DefaultPrefixCacheDir());
        input.origin = SourceOrigin::kScriptAnalysis;
        return input;
      }
  }
  throw support::InputError(fmt::format(
      "{} fails ({}), but not with a C++ compile error, and no TU it compiled has a conflicting "
      "declaration: for a Python-level failure reduce a case (inductor-fuzz reduce CASE.json)",
      options.script->string(), run.status.Describe()));
}

// A stored copy in a capture or run record (DIR/sources/NN-name.cpp beside DIR/commands.json)
// is reduced with the command that compiled it, its paths mapped onto this machine; any other
// source has no command of its own (empty).
std::vector<std::string> CapturedCommandOf(const fs::path &source) {
  const fs::path commands_file = source.parent_path().parent_path() / "commands.json";
  if (source.parent_path().filename() != "sources" || !fs::exists(commands_file))
    return {};
  for (const auto &command : corpus::ReadCommandsFile(commands_file))
    for (const auto &stored : command.sources) {
      if (fs::weakly_canonical(stored.stored) != fs::weakly_canonical(source))
        continue;
      if (!command.unavailable.empty())
        throw support::InputError(command.unavailable + "; install them, then reduce again");
      // Inductor's shared PCH lives in the capturing machine's cache (the matrix drops it too),
      // and what the build writes is nobody's to keep.
      std::vector<std::string> argv;
      for (std::size_t i = 0; i < command.argv.size(); ++i) {
        const std::string &argument = command.argv[i];
        if (argument == "-include" && i + 1 < command.argv.size() &&
            corpus::IsSharedPrecompiledHeader(command.argv[i + 1])) {
          ++i;
          continue;
        }
        argv.push_back(argument == stored.captured_path ? source.string() : argument);
        if (argument == "-o" && i + 1 < command.argv.size()) {
          argv.push_back("/dev/null");
          ++i;
        }
      }
      return argv;
    }
  return {};
}

SourceInput ChooseSourceTest(const ReduceOptions &options, SourceInput input,
                             const fs::path &scratch, std::chrono::seconds timeout) {
  if (options.interesting) {
    input.test = reducers::MakeScriptTest(*options.interesting, input.source.filename().string(),
                                          scratch / "test", timeout);
    input.origin = SourceOrigin::kScript;
    if (!options.compile_command.empty())
      input.clang_args = parsers::TranslateForClang(options.compile_command).clang_args;
    return input;
  }
  if (!options.compilers.empty()) {
    if (options.compile_command.empty())
      throw support::InputError("--compilers needs the TU's compile command after `--` (one "
                                "compiler's; the others get it adjusted as the matrix does)");
    auto command = options.compile_command;
    command[reducers::SourceArgument(command)] = input.source.string();
    ChooseDivergenceTest(input, command, options.compilers, options.run_programs, scratch, timeout);
    return input;
  }
  if (!options.compile_command.empty()) {
    ChooseCommandTest(input, options.compile_command, scratch, timeout);
    return input;
  }
  input.clang_args = {"-x", "c++", "-std=c++20"};
  input.test = reducers::MakeStaticFindingTest(input.clang_args, "", scratch / "test",
                                               DefaultPrefixCacheDir());
  input.origin = SourceOrigin::kAnalysis;
  return input;
}

} // namespace

SourceInput ReadSourceInput(const ReduceOptions &options, const fs::path &out_dir,
                            const fs::path &scratch, const support::ToolPaths &paths) {
  const std::chrono::seconds timeout(options.case_timeout_seconds);
  if (options.from_log) {
    std::string log;
    try {
      log = support::ReadTextFile(*options.from_log, "log", 256u << 20);
    } catch (const support::InputError &error) {
      throw support::InputError(fmt::format(
          "{}: give the job's text log as the CI service shows it (the raw log, not an archive)",
          error.what()));
    }
    const auto error = reducers::FindCompileError(log);
    if (!error)
      throw support::InputError(
          fmt::format("{} holds no CppCompileError (\"C++ compile error\", then \"Command:\" and "
                      "\"Output:\"): give the log of a run that failed to compile generated C++",
                      options.from_log->string()));
    if (error->errors_in_log > 1)
      std::cerr << fmt::format("reduce: {} holds {} different CppCompileErrors; reducing the last "
                               "(line {}: {})\n",
                               options.from_log->string(), error->errors_in_log, error->line,
                               error->command.at(reducers::SourceArgument(error->command)));
    return FromCompileError(*error, options.from_log->string(), scratch, timeout);
  }
  if (options.script)
    return FromScript(options, out_dir, scratch, paths, timeout);
  if (options.matrix_record)
    return FromMatrixRecord(*options.matrix_record, options.tu, scratch, timeout);

  SourceInput input;
  input.source = fs::absolute(*options.cpp_file);
  input.text = support::ReadTextFile(input.source, "C++ source", kSourceLimit);
  ReduceOptions given = options;
  if (given.compile_command.empty())
    given.compile_command = CapturedCommandOf(input.source);
  return ChooseSourceTest(given, std::move(input), scratch, timeout);
}

} // namespace workflows
