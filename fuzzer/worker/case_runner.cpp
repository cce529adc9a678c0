#include "fuzzer/worker/case_runner.h"

#include "parsers/diagnostics.h"
#include "support/sha256.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

namespace fuzzer::worker {
namespace {

using nlohmann::json;

// An exception is one bug by the innermost cause of its chain: its type, the first line of its
// message and the torch frame that raised it. The outer wrappers ("RuntimeError when making
// fake tensor call") are the same for every cause.
corpus::Finding ExceptionFinding(const json &exception) {
  corpus::Finding finding;
  finding.kind = corpus::FindingKind::kException;
  const json innermost = exception.value("innermost", json::object());
  const auto frames = exception.value("torch_frames", std::vector<std::string>{});
  const std::string type = innermost.value("type", exception.value("type", ""));
  const std::string message = innermost.value("message", exception.value("message", ""));
  // The innermost cause may have been raised outside torch (in the case's own mask): then the
  // last torch frame of the outer exception is the one that says where torch was.
  std::string frame = innermost.value("frame", "");
  if (frame.empty() && !frames.empty())
    frame = frames.back();
  finding.essence.Add("type", type)
      .Add("message", support::FirstNonBlankLine(message))
      .Add("frame", frame);
  finding.summary = fmt::format("{}: {}", type, support::FirstNonBlankLine(message));
  finding.message = exception.value("message", "");
  finding.diagnostic = exception.value("type", "");
  finding.detail = exception;
  return finding;
}

void AddCodePath(corpus::Finding &finding, const CodePath &path) {
  finding.essence.Add("template", path.template_kind)
      .Add("wrapper", path.wrapper)
      .Add("shapes", path.shapes);
}

corpus::Finding WrongResultFinding(const corpus::Case &c, const json &result) {
  corpus::Finding finding;
  finding.kind = corpus::FindingKind::kWrongResult;
  std::set<std::string> fields, problems, how, where;
  for (const auto &mismatch : result.value("mismatches", json::array())) {
    fields.insert(mismatch.value("field", ""));
    problems.insert(mismatch.value("problem", ""));
    if (mismatch.contains("how"))
      how.insert(mismatch.value("how", ""));
    if (mismatch.contains("where"))
      where.insert(mismatch.value("where", ""));
  }
  finding.essence.Add("api", c.api);
  // A program's first statement wrong on its own (first_wrong.py): the cause, where the fields
  // and where it shows are only its consequences.
  if (const auto first = result.find("first_wrong");
      first != result.end() && first->is_object() && (*first)["first"].is_string())
    finding.essence.Add("first", (*first)["first"].get<std::string>());
  finding.essence.Add("fields", corpus::FactValue::ListOf(fields))
      .Add("problems", corpus::FactValue::ListOf(problems))
      .Add("how", corpus::FactValue::ListOf(how))
      .Add("where", corpus::FactValue::ListOf(where));
  AddCodePath(finding, CodePathOf(c, result));
  finding.summary =
      fmt::format("{}: compiled differs from eager in {}", c.api, fmt::join(fields, ", "));
  finding.detail = {{"mismatches", result.value("mismatches", json::array())}};
  if (result.contains("first_wrong"))
    finding.detail["first_wrong"] = result["first_wrong"];
  if (result.contains("attention_errors"))
    finding.detail["attention_errors"] = result["attention_errors"];
  return finding;
}

// The worker died or hung: the signal and glibc's or the kernel's last word are the essence.
corpus::Finding DeathFinding(const corpus::Case &c, const WorkerReply &reply) {
  corpus::Finding finding;
  finding.kind = reply.status == ReplyStatus::kTimedOut ? corpus::FindingKind::kTimeout
                                                        : corpus::FindingKind::kCrash;
  finding.essence.Add("api", c.api);
  if (reply.status != ReplyStatus::kTimedOut) {
    finding.essence.Add("signal", reply.exit.signal ? std::to_string(*reply.exit.signal) : "none");
    finding.essence.Add("abort", reply.exit.signal ? reply.abort_message : "");
  }
  finding.summary = reply.detail;
  finding.message = reply.abort_message.empty() ? reply.stderr_tail : reply.abort_message;
  finding.detail = {{"detail", reply.detail}, {"worker_log_tail", reply.stderr_tail}};
  return finding;
}

} // namespace

CodePath CodePathOf(const corpus::Case &c, const json &result) {
  // Landmarks of what Inductor wrote (parsers/codegen_features.cpp names the same ones): the
  // flash-decoding template partitions the key blocks, the prefill template splits q and kv,
  // a cpp_wrapper TU defines the entry the Python wrapper would be, and a dynamic kernel takes
  // its sizes as ks<N>/s<N> parameters.
  static const std::regex dynamic_size(R"(\bconst int64_t (?:ks|s)[0-9]+\b)");
  CodePath path{.template_kind = "none",
                .wrapper = c.compile_with == corpus::kAoti ? "aoti" : "python",
                .shapes = "static"};
  bool any = false, prefill = false, decoding = false, entry = false, aoti = false, dynamic = false;
  for (const auto &build : result.value("builds", json::array()))
    for (const auto &source : build.value("sources", json::array())) {
      const std::string text = source.value("text", "");
      any = true;
      decoding = decoding || text.find("num_kvblocks_per_partition") != std::string::npos;
      prefill = prefill || text.find("qSplitSize") != std::string::npos;
      entry = entry || text.find("inductor_entry_impl") != std::string::npos;
      aoti = aoti || text.find("AOTInductorModel") != std::string::npos;
      dynamic = dynamic || std::regex_search(text, dynamic_size);
    }
  if (any)
    path.template_kind = decoding ? "flex-decoding" : prefill ? "flex-prefill" : "generic";
  if (aoti)
    path.wrapper = "aoti";
  else if (entry && path.wrapper != "aoti")
    path.wrapper = "cpp_wrapper";
  if (dynamic)
    path.shapes = "dynamic";
  return path;
}

namespace {

// The worker's reply of each kind it reports, read into a finding: one row each (the kinds the
// worker's Python names in cases.py).
corpus::Finding ExceptionReply(const corpus::Case &, const json &result) {
  return ExceptionFinding(result.value("exception", json::object()));
}

// The compiler's own words are parsed here, where the parsers are: the worker sends the command
// and its output.
corpus::Finding CompileErrorReply(const corpus::Case &c, const json &result) {
  const json exception = result.value("exception", json::object());
  if (!exception.contains("compile_error"))
    return ExceptionReply(c, result);
  const auto &error = exception["compile_error"];
  const auto argv = error.value("argv", std::vector<std::string>{});
  const auto family = parsers::FamilyOfCompiler(argv.empty() ? "g++" : argv[0]);
  auto finding = parsers::CompileErrorFinding(
      family, parsers::ParseCompilerText(error.value("output", ""), family));
  finding.detail = exception;
  return finding;
}

struct ReplyReader {
  std::string_view kind;
  corpus::Finding (*read)(const corpus::Case &c, const json &result);
};
constexpr std::array kReplyReaders = {ReplyReader{"wrong-result", &WrongResultFinding},
                                      ReplyReader{"compile-error", &CompileErrorReply},
                                      ReplyReader{"exception", &ExceptionReply}};

} // namespace

std::optional<corpus::Finding> FindingOfResult(const corpus::Case &c, const json &result) {
  if (result.value("status", "") != "finding")
    return std::nullopt;
  const std::string kind = result["kind"].is_string() ? result["kind"].get<std::string>() : "";
  for (const auto &reader : kReplyReaders)
    if (reader.kind == kind)
      return reader.read(c, result);
  // A kind of no row carries its facts in the reply, [name, value] pairs (a value a string or a
  // list of words), and its evidence in "detail": a new worker kind needs no reader here.
  if (const auto facts = result.find("facts"); facts != result.end() && facts->is_array()) {
    corpus::Finding finding;
    finding.kind = corpus::KindFromName(kind).value_or(corpus::FindingKind::kException);
    finding.essence.Add("api", c.api);
    for (const auto &fact : *facts)
      if (fact.is_array() && fact.size() == 2 && fact[0].is_string())
        finding.essence.Add(fact[0].get<std::string>(), corpus::FactValueFromJson(fact[1]));
    finding.summary = result.value("summary", fmt::format("{} on {}", kind, c.api));
    finding.detail = result.value("detail", json::object());
    return finding;
  }
  if (result.contains("exception")) // a kind of no row that says what raised
    return ExceptionReply(c, result);
  corpus::Finding finding;
  finding.kind = corpus::KindFromName(kind).value_or(corpus::FindingKind::kException);
  finding.essence.Add("api", c.api);
  finding.summary = fmt::format("{} on {}", kind, c.api);
  return finding;
}

namespace {

// The -o of a compile command, or empty.
std::string OutputOf(const json &build) {
  const auto argv = build.value("argv", std::vector<std::string>{});
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "-o")
      return argv[i + 1];
  return "";
}

// A worker that died mid-case sent no result. What it flushed as it went is kept: its builds
// (the journal, one JSON line per finished build; a line the death cut short is dropped) and,
// per recorded module, the calls up to the one it died in (NN-<module file>.pt).
void AddWhatTheWorkerFlushed(json &result, const std::filesystem::path &record_dir) {
  std::ifstream journal(record_dir / "builds.jsonl");
  json builds = json::array();
  for (std::string line; std::getline(journal, line);)
    if (auto build = json::parse(line, nullptr, false); build.is_object())
      builds.push_back(std::move(build));
  if (builds.empty())
    return;
  json recordings = json::array();
  std::error_code error;
  for (const auto &build : builds) {
    const std::string output = OutputOf(build);
    if (output.empty())
      continue;
    const std::string suffix = "-" + std::filesystem::path(output).filename().string() + ".pt";
    for (const auto &entry : std::filesystem::directory_iterator(record_dir, error))
      if (entry.path().filename().string().ends_with(suffix))
        recordings.push_back(
            {{"module", output}, {"file", entry.path().string()}, {"flushed_before_death", true}});
  }
  result["builds"] = std::move(builds);
  result["recordings"] = std::move(recordings);
}

} // namespace

json RunRequest(const corpus::Case &c) {
  return {{"op", "run"},
          {"case", corpus::CaseToJson(c)},
          {"inductor_config", corpus::InductorConfig(c)},
          {"dynamic", corpus::DynamicArgument(c)},
          {"defaulted_knobs", c.inductor.defaulted}};
}

std::filesystem::path CompilerSafePath(const std::filesystem::path &folder) {
  namespace fs = std::filesystem;
  const fs::path absolute = fs::absolute(folder).lexically_normal();
  const std::string text = absolute.string();
  const bool safe = std::all_of(text.begin(), text.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '/' || ch == '.' || ch == '_' || ch == '-' || ch == '+';
  });
  if (safe)
    return absolute;
  fs::create_directories(absolute);
  const fs::path links = fs::temp_directory_path() / "inductor-fuzz-safe-paths";
  fs::create_directories(links);
  const fs::path link = links / support::Sha256Hex(text).substr(0, 16);
  std::error_code error;
  if (fs::read_symlink(link, error) != absolute) {
    fs::remove(link, error);
    fs::create_directory_symlink(absolute, link);
  }
  return link;
}

CaseOutcome RunCaseOnWorker(Worker &worker, const corpus::Case &c,
                            const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options) {
  for (const auto &folder : {cache_dir, run_options.record_dir})
    if (!folder.empty() && !worker.MayWrite(folder))
      throw std::logic_error(fmt::format(
          "{} is outside the folders its worker may write (WorkerOptions::write_roots): the "
          "case would fail as if Inductor had",
          folder.string()));
  json request = RunRequest(c);
  // Inductor writes this path into its compiler commands unquoted: a space would split them.
  request["cache_dir"] = CompilerSafePath(cache_dir).string();
  if (run_options.eager_only)
    request["eager_only"] = true;
  if (!run_options.test_plant.empty())
    request["test_plant"] = run_options.test_plant;
  if (!run_options.record_dir.empty())
    request["record_dir"] = run_options.record_dir.string();
  if (!run_options.build_cache.empty())
    request["build_cache"] = run_options.build_cache.string();
  return OutcomeOfReply(c, worker.Request(request, timeout), run_options.record_dir);
}

CaseOutcome OutcomeOfReply(const corpus::Case &c, WorkerReply reply,
                           const std::filesystem::path &record_dir) {
  CaseOutcome outcome;
  if (reply.status == ReplyStatus::kOk &&
      (reply.message.contains("error") || !reply.message.contains("result") ||
       !reply.message["result"].is_object())) {
    // The worker answered, but not with a result: its protocol broke on this case.
    reply.status = ReplyStatus::kCrashed;
    reply.detail = fmt::format("worker protocol error: {}",
                               reply.message.value("error", json("no result")).dump());
  }
  if (reply.status != ReplyStatus::kOk) {
    outcome.status = corpus::CaseStatus::kFinding;
    outcome.finding = DeathFinding(c, reply);
    outcome.result = outcome.finding->detail;
    if (!record_dir.empty())
      AddWhatTheWorkerFlushed(outcome.result, record_dir);
    // Where the worker died: the code it had flushed by then. Kept out of the signature, since
    // a run that records nothing (replay, bisect) cannot see it; the bug key reads it.
    const CodePath path = CodePathOf(c, outcome.result);
    outcome.finding->detail["code_path"] = {
        {"template", path.template_kind}, {"wrapper", path.wrapper}, {"shapes", path.shapes}};
  } else {
    outcome.result = reply.message["result"];
    const auto status = corpus::StatusFromName(outcome.result.value("status", ""));
    outcome.status = status.value_or(corpus::CaseStatus::kFinding);
    outcome.finding = FindingOfResult(c, outcome.result);
    if (outcome.status == corpus::CaseStatus::kFinding && !outcome.finding) {
      corpus::Finding finding;
      finding.kind = corpus::FindingKind::kCrash;
      finding.essence.Add("api", c.api).Add("protocol", "unknown status");
      finding.summary = "the worker replied with an unknown status";
      outcome.finding = finding;
    }
  }
  outcome.result["status"] = corpus::StatusName(outcome.status);
  if (outcome.finding) {
    outcome.finding->subject = c.name;
    outcome.result["kind"] = corpus::KindName(outcome.finding->kind);
    outcome.result["signature"] = corpus::Signature(*outcome.finding);
  }
  return outcome;
}

} // namespace fuzzer::worker
