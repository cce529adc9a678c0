#include "fuzzer/worker/case_runner.h"

#include "corpus/run_record.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/support/version.h"
#include "parsers/diagnostics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <set>

namespace fuzzer::worker {
namespace {

using nlohmann::json;

std::string SafeFileName(const std::string &path, std::size_t index) {
  std::string name = std::filesystem::path(path).filename().string();
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return fmt::format("{:02}-{}", index, name);
}

// What dedups this outcome: the oracle kind and its normalized essence (see parsers/).
std::string OutcomeSignature(const corpus::Case &c, const json &result) {
  const std::string kind =
      result.value("kind", json(nullptr)).is_string() ? result["kind"].get<std::string>() : "";
  if (result.contains("exception")) {
    const json &exception = result["exception"];
    if (exception.value("expected", false))
      return fmt::format("expected|{}", exception.value("class", ""));
    if (kind == "compile-error" && exception.contains("compile_error")) {
      const auto &error = exception["compile_error"];
      const auto argv = error.value("argv", std::vector<std::string>{});
      const auto family = parsers::FamilyOfCompiler(argv.empty() ? "g++" : argv[0]);
      return parsers::CompileErrorSignature(
          family, parsers::ParseCompilerText(error.value("output", ""), family));
    }
    return parsers::ExceptionSignature(exception.value("type", ""), exception.value("message", ""),
                                       exception.value("torch_frames", std::vector<std::string>{}));
  }
  if (kind == "wrong-result") {
    std::set<std::string> fields;
    for (const auto &mismatch : result["mismatches"])
      fields.insert(mismatch.value("field", ""));
    return fmt::format("wrong-result|{}|{}", c.api, fmt::join(fields, ","));
  }
  if (!kind.empty())
    return fmt::format("{}|{}", kind, c.api);
  return "";
}

// Points each command that built a recorded module at its recording, relative to out_dir.
void AttachRecordings(const std::filesystem::path &out_dir, json &result, json &commands) {
  if (!result.contains("recordings"))
    return;
  for (auto &recording : result["recordings"]) {
    const auto file = std::filesystem::path(recording.value("file", ""));
    const auto relative = file.lexically_relative(out_dir);
    if (!relative.empty() && !relative.string().starts_with(".."))
      recording["file"] = relative.string();
    for (auto &command : commands)
      if (corpus::OutputOfCommand(command.value("argv", std::vector<std::string>{})) ==
          recording.value("module", "")) {
        command["recording"] = recording["file"];
        command["entry"] = recording["entry"];
      }
  }
}

} // namespace

CaseOutcome RunCaseOnWorker(Worker &worker, const corpus::Case &c,
                            const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options) {
  json request = {
      {"op", "run"}, {"case", corpus::CaseToJson(c)}, {"cache_dir", cache_dir.string()}};
  if (run_options.eager_only)
    request["eager_only"] = true;
  if (!run_options.test_plant.empty())
    request["test_plant"] = run_options.test_plant;
  if (!run_options.record_dir.empty())
    request["record_dir"] = run_options.record_dir.string();
  WorkerReply reply = worker.Request(request, timeout);
  CaseOutcome outcome;
  if (reply.status != ReplyStatus::kOk) {
    outcome.status = "finding";
    outcome.kind = reply.status == ReplyStatus::kTimedOut ? "timeout" : "crash";
    outcome.result = {{"status", outcome.status},
                      {"kind", outcome.kind},
                      {"detail", reply.detail},
                      {"worker_log_tail", reply.stderr_tail}};
    outcome.result["signature"] = OutcomeSignature(c, outcome.result);
    return outcome;
  }
  if (reply.message.contains("error"))
    throw std::runtime_error(
        fmt::format("the worker could not run the case: {}", reply.message["error"].dump()));
  outcome.result = reply.message.at("result");
  outcome.status = outcome.result.value("status", "");
  outcome.result["signature"] = OutcomeSignature(c, outcome.result);
  outcome.kind =
      outcome.result["kind"].is_string() ? outcome.result["kind"].get<std::string>() : "";
  return outcome;
}

void WriteCaseArtifacts(const std::filesystem::path &out_dir, const corpus::Case &c,
                        const CaseOutcome &outcome, const json &provenance) {
  std::filesystem::create_directories(out_dir / "sources");
  json result = outcome.result;
  json commands = json::array();
  std::size_t index = 0;
  for (auto &build : result.contains("builds") ? result["builds"] : json::array()) {
    json stored_sources = json::array();
    for (const auto &source : build["sources"]) {
      const auto stored = std::filesystem::path("sources") /
                          SafeFileName(source["path"].get<std::string>(), index++);
      support::WriteFileAtomically(out_dir / stored, source["text"].get<std::string>());
      stored_sources.push_back({{"captured_path", source["path"]}, {"stored", stored.string()}});
    }
    build["sources"] = stored_sources;
    commands.push_back(build);
  }
  result.erase("builds");
  AttachRecordings(out_dir, result, commands);
  if (result.contains("wrappers")) {
    std::filesystem::create_directories(out_dir / "wrappers");
    std::size_t wrapper_index = 0;
    json stored_wrappers = json::array();
    for (const auto &wrapper : result["wrappers"]) {
      const auto stored = std::filesystem::path("wrappers") /
                          SafeFileName(wrapper["path"].get<std::string>(), wrapper_index++);
      support::WriteFileAtomically(out_dir / stored, wrapper["text"].get<std::string>());
      stored_wrappers.push_back(stored.string());
    }
    result["wrappers"] = stored_wrappers;
  }
  result["commands"] = "commands.json";
  result["case"] = "case.json";
  result["provenance"] = provenance;
  support::WriteFileAtomically(out_dir / "commands.json", commands.dump(2) + "\n");
  support::WriteFileAtomically(out_dir / "case.json", corpus::CaseToJson(c).dump(2) + "\n");
  support::WriteFileAtomically(out_dir / "result.json", result.dump(2) + "\n");
}

} // namespace fuzzer::worker
