// A repro script (a case's repro.py, a reduced one, a delivered one) run on its own with a
// venv's python, and judged against the signature it should fail with.
#include "fuzzer/worker/standalone_run.h"

#include "corpus/finding.h"
#include "corpus/finding_kinds.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace fuzzer::worker {
namespace {

// The last lines of a run's output, where the error is: at most 40 lines and 6000 bytes.
std::string LastLines(const std::string &output) {
  std::string tail = output.size() > 6000 ? output.substr(output.size() - 6000) : output;
  std::size_t start = tail.size();
  for (int lines = 0; lines < 41 && start > 0; ++lines)
    start = tail.rfind('\n', start - 1) == std::string::npos ? 0 : tail.rfind('\n', start - 1);
  tail = tail.substr(start == 0 ? 0 : start + 1);
  while (!tail.empty() && tail.back() == '\n')
    tail.pop_back();
  return tail;
}

// What a report needs of a run's output: its last lines and, where a C++ compile error sits
// further up (Inductor's CppCompileError prints the compiler's whole output, whose header
// warnings then fill the end), the 4000 bytes from that error's exception on.
std::string OutputTail(const std::string &output) {
  const std::string tail = LastLines(output);
  auto first = output.find("CppCompileError");
  if (first == std::string::npos)
    first = output.find(" error: ");
  if (first == std::string::npos || first + 4000 >= output.size() - tail.size())
    return tail;
  first = output.rfind('\n', first);
  first = first == std::string::npos ? 0 : first + 1;
  std::string head = output.substr(first, 4000);
  head = head.substr(0, head.rfind('\n') + 1);
  return head + "...\n" + tail;
}

// The kind's own judge (its row in corpus/kinds/), the one every repro is judged by.
bool Shows(const corpus::ReproRun &run, corpus::FindingKind kind, const std::string &signature) {
  const auto &row = corpus::RowOf(kind);
  return row.shows_in_repro && row.shows_in_repro(run, corpus::ExpectationOf(signature));
}

// A memory error's run: the prelude keeps the log path and cache given here, so the reports are
// read as the worker's are.
StandaloneRun RunSanitizedOnce(const std::filesystem::path &script,
                               const std::filesystem::path &python, corpus::FindingKind kind,
                               const std::string &signature, std::chrono::seconds timeout) {
  support::ScratchDir scratch("standalone-sanitized");
  const std::string log_path = "log_path=" + (scratch / "reports" / "report").string();
  std::filesystem::create_directories(scratch / "reports");
  const auto run = support::RunCommand(
      {python.string(), script.string()},
      {.working_directory = script.parent_path(),
       .environment = {{"TORCHINDUCTOR_CACHE_DIR", (scratch / "cache").string()},
                       {"ASAN_OPTIONS", log_path},
                       {"UBSAN_OPTIONS", log_path}}},
      timeout);
  const auto errors = fuzzer::worker::CollectMemoryErrors(scratch.path(), scratch / "cache");
  StandaloneRun result{.passed = run.status.Succeeded() && errors.empty(),
                       .output = OutputTail(run.output)};
  corpus::ReproRun judged{.timed_out = run.timed_out,
                          .exit_code = run.status.exit_code,
                          .signal = run.status.signal,
                          .output = run.output};
  for (const auto &error : errors)
    judged.sanitizer_signatures.push_back(corpus::Signature(error));
  result.reproduces = Shows(judged, kind, signature);
  result.how = run.timed_out ? "no end within the time limit"
               : errors.empty()
                   ? fmt::format("{}: no sanitizer report in a kernel", run.status.Describe())
                   : fmt::format("{}: {}", run.status.Describe(), errors.front().summary);
  return result;
}

StandaloneRun RunStandaloneOnce(const std::filesystem::path &script,
                                const std::filesystem::path &python, corpus::FindingKind kind,
                                const std::string &signature, std::chrono::seconds timeout) {
  if (corpus::RowOf(kind).repro_form == corpus::ReproForm::kSanitized)
    return RunSanitizedOnce(script, python, kind, signature, timeout);
  const auto run = support::RunCommand({python.string(), script.string()},
                                       {.working_directory = script.parent_path()}, timeout);
  std::string last_line = run.output;
  while (!last_line.empty() && last_line.back() == '\n')
    last_line.pop_back();
  last_line = last_line.substr(last_line.rfind('\n') + 1);
  StandaloneRun result{.passed = !run.timed_out && run.status.Succeeded(),
                       .how = run.timed_out
                                  ? "no end within the time limit"
                                  : fmt::format("{}: {}", run.status.Describe(), last_line),
                       .output = OutputTail(run.output)};
  result.reproduces = Shows({.timed_out = run.timed_out,
                             .exit_code = run.status.exit_code,
                             .signal = run.status.signal,
                             .output = run.output,
                             .last_line = last_line},
                            kind, signature);
  return result;
}

} // namespace

StandaloneRun RunStandalone(const std::filesystem::path &script,
                            const std::filesystem::path &python, corpus::FindingKind kind,
                            const std::string &signature, std::chrono::seconds timeout,
                            unsigned attempts) {
  StandaloneRun result;
  for (unsigned run = 1; run <= std::max(1u, attempts); ++run) {
    result = RunStandaloneOnce(script, python, kind, signature, timeout);
    result.runs = run;
    if (result.reproduces)
      break;
  }
  return result;
}

} // namespace fuzzer::worker
