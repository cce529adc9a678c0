// A repro script (a case's repro.py, a reduced one, a delivered one) run on its own with a
// venv's python, and judged against the signature it should fail with.
#include "fuzzer/worker/standalone_run.h"

#include "corpus/finding.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace fuzzer::worker {
namespace {

std::map<std::string, std::string> Facts(const std::string &signature) {
  std::map<std::string, std::string> facts;
  std::istringstream parts(signature);
  std::string part;
  std::getline(parts, facts["kind"], '|');
  while (std::getline(parts, part, '|'))
    if (const auto equals = part.find('='); equals != std::string::npos)
      facts[part.substr(0, equals)] = part.substr(equals + 1);
  return facts;
}

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

// Whether a repro that catches the compiler's error and prints it (a hand-written one) prints
// the signature's message: each fixed part of it (a known issue's pattern has * between them),
// with the compiler's typographic quotes read as plain ones.
bool SaysTheMessage(const std::string &output, const std::map<std::string, std::string> &facts) {
  const auto message = facts.find("message");
  if (message == facts.end() || message->second.empty())
    return false;
  std::string plain = output;
  for (const std::string quote : {"\u2018", "\u2019"})
    for (auto at = plain.find(quote); at != std::string::npos; at = plain.find(quote))
      plain.replace(at, quote.size(), "'");
  plain = corpus::MessageTemplate(plain);
  std::size_t parts = 0;
  std::istringstream pieces(message->second);
  for (std::string piece; std::getline(pieces, piece, '*');)
    if (piece.size() >= 4) {
      ++parts;
      if (plain.find(piece) == std::string::npos)
        return false;
    }
  return parts > 0;
}

// A memory error's run: the prelude keeps the log path and cache given here, so the reports are
// read as the worker's are.
StandaloneRun RunSanitizedOnce(const std::filesystem::path &script,
                               const std::filesystem::path &python, const std::string &signature,
                               std::chrono::seconds timeout) {
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
  for (const auto &error : errors)
    result.reproduces |= corpus::Signature(error) == signature;
  result.how = run.timed_out ? "no end within the time limit"
               : errors.empty()
                   ? fmt::format("{}: no sanitizer report in a kernel", run.status.Describe())
                   : fmt::format("{}: {}", run.status.Describe(), errors.front().summary);
  return result;
}

StandaloneRun RunStandaloneOnce(const std::filesystem::path &script,
                                const std::filesystem::path &python, const std::string &signature,
                                std::chrono::seconds timeout) {
  const auto facts = Facts(signature);
  if (facts.at("kind") == "memory-error")
    return RunSanitizedOnce(script, python, signature, timeout);
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
  const std::string &kind = facts.at("kind");
  if (kind == "timeout")
    result.reproduces = run.timed_out;
  else if (run.timed_out || run.status.Succeeded())
    result.reproduces = false;
  else if (kind == "crash" && facts.contains("signal") && run.status.signal) {
    const std::string signal = std::to_string(*run.status.signal);
    result.reproduces = facts.at("signal") == corpus::kMemoryCorruptionSignal
                            ? corpus::IsMemoryCorruptionCrash(signal, last_line)
                            : signal == facts.at("signal");
  } else if (kind == "exception") {
    std::string type = facts.contains("type") ? facts.at("type") : "";
    type = type.substr(type.rfind('.') + 1);
    // The type alone is not the bug: assert_close raises AssertionError too. The message, as
    // the signature normalises it, must be there as well.
    // (a known issue's pattern: what comes before its first '*')
    const std::string message =
        facts.contains("message")
            ? facts.at("message").substr(0, facts.at("message").find('*')).substr(0, 40)
            : std::string();
    result.reproduces =
        !type.empty() && run.output.find(type) != std::string::npos &&
        (message.empty() || corpus::MessageTemplate(run.output).find(message) != std::string::npos);
  } else if (kind == "wrong-result")
    result.reproduces = run.output.find("AssertionError") != std::string::npos;
  else if (kind == "compile-error")
    result.reproduces = run.output.find("CppCompileError") != std::string::npos ||
                        (run.status.exit_code != 0 && SaysTheMessage(run.output, facts));
  return result;
}

} // namespace

StandaloneRun RunStandalone(const std::filesystem::path &script,
                            const std::filesystem::path &python, const std::string &signature,
                            std::chrono::seconds timeout, unsigned attempts) {
  StandaloneRun result;
  for (unsigned run = 1; run <= std::max(1u, attempts); ++run) {
    result = RunStandaloneOnce(script, python, signature, timeout);
    result.runs = run;
    if (result.reproduces)
      break;
  }
  return result;
}

} // namespace fuzzer::worker
