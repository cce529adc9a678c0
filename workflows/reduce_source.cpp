#include "workflows/reduce_source.h"

#include "parsers/diagnostics.h"
#include "reducers/source/interestingness.h"
#include "reducers/source/source_reducer.h"
#include "reducers/source/token_edits.h"
#include "support/child_process.h"
#include "support/interrupt.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/version.h"
#include "workflows/check.h"
#include "workflows/reduce_source_input.h"
#include "workflows/source_origin.h"

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
  if (input.origin == SourceOrigin::kScript)
    return {run.status.Succeeded(), "the interestingness script " + run.status.Describe()};
  if (input.origin == SourceOrigin::kCompilerDivergence)
    return {run.status.exit_code == 1, run.status.exit_code == 1
                                           ? "the compilers disagree as on the original"
                                           : "the compilers no longer disagree that way"};
  if (input.origin == SourceOrigin::kRuntimeDivergence)
    return {run.status.exit_code == 1, run.status.exit_code == 1
                                           ? "the programs print differently"
                                           : "the programs no longer print differently"};
  if (run.status.Succeeded())
    return {false, "the command succeeds"};
  if (input.origin == SourceOrigin::kCompiler || input.origin == SourceOrigin::kLog) {
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
  reducers::SourceReduceOptions reduce{.jobs = jobs,
                                       .passes = passes,
                                       .gate_on_parse_errors =
                                           input.origin == SourceOrigin::kScript ||
                                           input.origin == SourceOrigin::kCompilerDivergence};
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
      {"origin", std::string(SourceOriginName(input.origin))},
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
