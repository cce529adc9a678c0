#include "workflows/reduce_case.h"

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
#include "reducers/source/interestingness.h"
#include "reducers/source/source_reducer.h"
#include "reducers/source/token_edits.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/interrupt.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/version.h"
#include "workflows/check.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <thread>

#include <unistd.h>

namespace workflows {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kSourceLimit = 16u << 20;

// What to reduce and the test that says a candidate still fails.
struct SourceInput {
  fs::path source;
  std::string text;
  std::unique_ptr<reducers::InterestingnessTest> test;
  std::vector<std::string> clang_args; // for the syntax passes; empty: none known
  std::string origin;                  // how the failure was found, for reduction.json
  std::string expected_signature;      // from a log, to compare with what the test sees
};

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
    input.origin = "compiler";
    return;
  }
  input.test = reducers::MakeStaticFindingTest(input.clang_args, "", scratch / "test",
                                               DefaultPrefixCacheDir());
  input.origin = "analysis";
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
    input.origin = "runtime-divergence";
  } else {
    input.test = reducers::MakeCompilerDivergenceTest(std::move(commands), scratch / "test",
                                                      timeout, DivergenceSignature);
    input.origin = "compiler-divergence";
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
  input.origin = "compiler-divergence";
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
  input.origin = "log";
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
        input.origin = "script-analysis";
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
                             const fs::path &scratch, std::chrono::seconds timeout);

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

SourceInput ChooseSourceTest(const ReduceOptions &options, SourceInput input,
                             const fs::path &scratch, std::chrono::seconds timeout) {
  if (options.interesting) {
    input.test = reducers::MakeScriptTest(*options.interesting, input.source.filename().string(),
                                          scratch / "test", timeout);
    input.origin = "script";
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
  input.origin = "analysis";
  return input;
}

// What running repro.sh showed: whether it reproduces, and how the run went, in words.
struct ReproRun {
  bool reproduces = false;
  std::string how;
};

// Runs repro.sh as a user would and says whether it shows the failure.
ReproRun RunRepro(const fs::path &repro, const SourceInput &input, const std::string &signature,
                  std::chrono::seconds timeout) {
  const auto run = support::RunCommand({"/bin/sh", repro.string()}, {}, timeout);
  if (run.timed_out)
    return {false, "timed out"};
  if (input.origin == "script")
    return {run.status.Succeeded(), "the interestingness script " + run.status.Describe()};
  if (input.origin == "compiler-divergence")
    return {run.status.exit_code == 1, run.status.exit_code == 1
                                           ? "the compilers disagree as on the original"
                                           : "the compilers no longer disagree that way"};
  if (input.origin == "runtime-divergence")
    return {run.status.exit_code == 1, run.status.exit_code == 1
                                           ? "the programs print differently"
                                           : "the programs no longer print differently"};
  if (run.status.Succeeded())
    return {false, "the command succeeds"};
  if (input.origin == "compiler" || input.origin == "log") {
    for (auto family : {parsers::CompilerFamily::kGcc, parsers::CompilerFamily::kClang}) {
      const auto seen = corpus::Signature(
          parsers::CompileErrorFinding(family, parsers::ParseCompilerText(run.output, family)));
      if (seen == signature)
        return {true, "the compiler fails with the same first error"};
    }
    return {false, "the compiler fails differently"};
  }
  return {run.output.find("error:") != std::string::npos,
          "clang++-19 " + run.status.Describe() + " with an error"};
}

// The default output folder is named after the input, whichever kind it is.
std::string InputStem(const ReduceOptions &options) {
  return options.cpp_file        ? options.cpp_file->stem().string()
         : options.from_log      ? options.from_log->stem().string()
         : options.matrix_record ? options.matrix_record->stem().string()
                                 : options.script->stem().string();
}

reducers::SourceReduceOptions
ReducerOptions(const ReduceOptions &options, const SourceInput &input,
               const std::vector<const reducers::SourcePass *> &passes) {
  const unsigned jobs =
      options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  // A user's script, like a divergence, may build on two compilers: seconds a candidate, where a
  // Clang parse costs a fraction of one.
  reducers::SourceReduceOptions reduce{
      .jobs = jobs,
      .passes = passes,
      .gate_on_parse_errors = input.origin == "script" || input.origin == "compiler-divergence"};
  if (auto formatter = support::FindOnPath("clang-format-19"))
    reduce.formatter = *formatter;
  return reduce;
}

// Progress goes to stderr, on one rewritten line at a terminal; each better source is written
// at once, so that an interrupted or killed reduction still leaves its best so far.
reducers::SourceReduction RunReducer(const SourceInput &input,
                                     const reducers::SourceReduceOptions &reduce,
                                     const reducers::SourcePassContext &context,
                                     const fs::path &out_dir, const fs::path &reduced_file) {
  const bool terminal = ::isatty(STDERR_FILENO);
  reducers::SourceReduceCallbacks callbacks{
      .progress =
          [terminal](const std::string &line) {
            if (terminal)
              std::cerr << "\r\033[K" << line.substr(0, 160) << std::flush;
            else
              std::cerr << line << "\n";
          },
      .improved =
          [&](const reducers::SourceReduction &best) {
            fs::create_directories(out_dir); // not before the source is known to fail
            support::WriteFileAtomically(reduced_file, best.reduced);
          }};
  // Ctrl-C or SIGTERM stops the reducer; the best source so far stays.
  auto reduction = [&] {
    const support::StopOnInterrupt interrupt;
    return reducers::ReduceSource(input.text, *input.test, reduce, context, interrupt.requested(),
                                  callbacks);
  }();
  if (terminal)
    std::cerr << "\n";
  return reduction;
}

// repro.sh runs the test on reduced.cpp without the tool; the signature heads it as a comment.
fs::path WriteRepro(const fs::path &out_dir, const SourceInput &input,
                    const reducers::SourceReduction &reduction, const fs::path &reduced_file) {
  const fs::path repro = out_dir / "repro.sh";
  support::WriteFileAtomically(repro, "#!/bin/sh\n# " + reduction.signature + "\n" +
                                          input.test->ReproCommand(reduced_file));
  fs::permissions(repro, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  return repro;
}

json ReductionReport(const ReduceOptions &options, const SourceInput &input,
                     const reducers::SourceReduceOptions &reduce,
                     const reducers::SourceReduction &reduction, const ReproRun &repro_run) {
  return {
      {"signature", reduction.signature},
      {"test", input.test->Describe()},
      {"origin", input.origin},
      {"source", input.source.string()},
      {"steps", reduction.steps},
      {"candidates_run", reduction.tried},
      {"clang_gate",
       {{"on", reduce.gate_on_parse_errors},
        {"dropped", reduction.gated},
        {"audited", reduction.gate_audits},
        {"refuted", reduction.gate_refuted}}},
      {"rounds", reduction.rounds},
      {"seconds", reduction.seconds},
      {"seconds_per_candidate", reduction.tried ? reduction.test_seconds / reduction.tried : 0.0},
      {"interrupted", reduction.interrupted},
      {"jobs", reduce.jobs},
      {"bytes_before", reduction.original.size()},
      {"bytes_after", reduction.reduced.size()},
      {"tokens_before", reducers::CountTokens(reduction.original)},
      {"tokens_after", reducers::CountTokens(reduction.reduced)},
      {"lines_before", reducers::CountLines(reduction.original)},
      {"lines_after", reducers::CountLines(reduction.reduced)},
      {"accepted_by_pass", reduction.accepted_by_pass},
      {"formatted", reduction.formatted},
      {"repro_reproduces", repro_run.reproduces},
      {"repro_run", repro_run.how},
      {"tool_version", support::ToolVersion()},
      {"command_line", options.command_line}};
}

void PrintSummary(const reducers::SourceReduction &reduction, const fs::path &repro,
                  const ReproRun &repro_run, std::ostream &out) {
  out << fmt::format(
      "reduce: {} -> {} lines, {} -> {} tokens; {} step(s), {} candidate(s){} in "
      "{:.1f} s{}\n",
      reducers::CountLines(reduction.original), reducers::CountLines(reduction.reduced),
      reducers::CountTokens(reduction.original), reducers::CountTokens(reduction.reduced),
      reduction.steps, reduction.tried,
      reduction.gated ? fmt::format(" (and {} dropped by Clang untested)", reduction.gated) : "",
      reduction.seconds, reduction.interrupted ? " (interrupted)" : "");
  out << fmt::format("reduce: {}: {} ({})\n", repro.string(),
                     repro_run.reproduces ? "shows the same failure" : "DOES NOT reproduce",
                     repro_run.how);
}

} // namespace

std::optional<std::vector<std::string>> CommandOfBuild(const corpus::BuildRecord &build) {
  std::vector<std::string> argv;
  for (std::size_t i = 0; i < build.argv.size(); ++i) {
    const std::string &word = build.argv[i];
    if (word.starts_with("-fsanitize="))
      return std::nullopt; // a sanitizer column: never part of a divergence
    if ((word == "-include-pch" || word == "-include") && i + 1 < build.argv.size() &&
        fs::path(build.argv[i + 1]).filename().string().starts_with("prefix-")) {
      ++i;
      continue;
    }
    if (word == "-Winvalid-pch")
      continue;
    argv.push_back(word);
  }
  return argv;
}

int ReduceSource(const ReduceOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const fs::path out_dir = fs::absolute(options.out_dir.value_or("reduced-" + InputStem(options)));
  const auto passes = reducers::LoadSourcePassOrder(options.source_passes_file.value_or(
      paths.project_root / "reducers" / "source" / "passes.json"));
  support::ScratchDir scratch("reduce-source");
  const SourceInput input = ReadSourceInput(options, out_dir, scratch.path(), paths);
  if (const auto notes = input.test->Notes(); !notes.empty())
    std::cerr << notes << "\n";
  const auto context = reducers::MakeSourcePassContext(input.clang_args, DefaultPrefixCacheDir());
  const reducers::SourceReduceOptions reduce = ReducerOptions(options, input, passes);

  const fs::path reduced_file = out_dir / "reduced.cpp";
  out << fmt::format("reduce: {} ({} bytes, {} lines) with {} job(s); best so far in {}\n",
                     input.source.string(), input.text.size(), reducers::CountLines(input.text),
                     reduce.jobs, reduced_file.string());
  out.flush();
  const auto reduction = RunReducer(input, reduce, context, out_dir, reduced_file);
  fs::create_directories(out_dir);
  support::WriteFileAtomically(out_dir / ("original" + input.source.extension().string()),
                               input.text);
  support::WriteFileAtomically(reduced_file, reduction.reduced);
  if (!input.expected_signature.empty() && input.expected_signature != reduction.signature)
    out << fmt::format("reduce: note: the log's error was {}, the source fails here with {}\n",
                       input.expected_signature, reduction.signature);

  const fs::path repro = WriteRepro(out_dir, input, reduction, reduced_file);
  const ReproRun repro_run = RunRepro(repro, input, reduction.signature,
                                      std::chrono::seconds(options.case_timeout_seconds));
  const json report = ReductionReport(options, input, reduce, reduction, repro_run);
  support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
  PrintSummary(reduction, repro, repro_run, out);
  return repro_run.reproduces ? support::kExitNothingFound : support::kExitFindings;
}

} // namespace workflows
