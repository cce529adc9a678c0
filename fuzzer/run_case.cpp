#include "fuzzer/run_case.h"

#include "fuzzer/compiler_flags.h"
#include "fuzzer/text_file.h"
#include "fuzzer/version.h"
#include "parsers/diagnostics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <set>

namespace fuzzer {
namespace {

using nlohmann::json;

// Files run-case writes; a folder holding anything else is not ours to overwrite.
const std::set<std::string> kOutputEntries = {"result.json", "case.json", "commands.json",
                                              "sources",     "wrappers",  "recordings",
                                              "worker.log",  "scratch",   "inductor-cache"};

void PrepareOutputFolder(const std::filesystem::path &out_dir) {
  if (std::filesystem::exists(out_dir)) {
    if (!std::filesystem::is_directory(out_dir))
      throw InputError(fmt::format("--out {} exists and is not a folder", out_dir.string()));
    for (const auto &entry : std::filesystem::directory_iterator(out_dir)) {
      const auto name = entry.path().filename().string();
      if (!kOutputEntries.contains(name) && !name.starts_with("."))
        throw InputError(fmt::format("--out {} holds {}, which run-case did not write; "
                                     "choose an empty or new folder",
                                     out_dir.string(), name));
    }
  }
}

void ClearPreviousRun(const std::filesystem::path &out_dir) {
  if (!std::filesystem::exists(out_dir))
    return;
  for (const auto &name : kOutputEntries)
    if (name != "worker.log" && name != "scratch")
      std::filesystem::remove_all(out_dir / name);
}

std::string SafeFileName(const std::string &path, std::size_t index) {
  std::string name = std::filesystem::path(path).filename().string();
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return fmt::format("{:02}-{}", index, name);
}

// What dedups this outcome: the oracle kind and its normalized essence (see parsers/).
std::string OutcomeSignature(const Case &c, const json &result) {
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
      if (OutputOfCommand(command.value("argv", std::vector<std::string>{})) ==
          recording.value("module", "")) {
        command["recording"] = recording["file"];
        command["entry"] = recording["entry"];
      }
  }
}

} // namespace

CaseOutcome RunCaseOnWorker(Worker &worker, const Case &c, const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options) {
  json request = {{"op", "run"}, {"case", CaseToJson(c)}, {"cache_dir", cache_dir.string()}};
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

void WriteCaseArtifacts(const std::filesystem::path &out_dir, const Case &c,
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
      WriteFileAtomically(out_dir / stored, source["text"].get<std::string>());
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
      WriteFileAtomically(out_dir / stored, wrapper["text"].get<std::string>());
      stored_wrappers.push_back(stored.string());
    }
    result["wrappers"] = stored_wrappers;
  }
  result["commands"] = "commands.json";
  result["case"] = "case.json";
  result["provenance"] = provenance;
  WriteFileAtomically(out_dir / "commands.json", commands.dump(2) + "\n");
  WriteFileAtomically(out_dir / "case.json", CaseToJson(c).dump(2) + "\n");
  WriteFileAtomically(out_dir / "result.json", result.dump(2) + "\n");
}

int RunCaseCommand(const RunCaseOptions &options, const ToolPaths &paths, std::ostream &out) {
  const Case c = LoadCaseFile(options.case_file);
  const auto out_dir = std::filesystem::absolute(options.out_dir);
  PrepareOutputFolder(out_dir);
  std::filesystem::create_directories(out_dir);
  Worker worker(WorkerOptions{.worker_executable = paths.worker_executable,
                              .venv = paths.venv,
                              .scratch_dir = out_dir / "scratch",
                              .log_file = out_dir / "worker.log"});
  const json ready = worker.Ready();
  ClearPreviousRun(out_dir);
  out << fmt::format("run-case {}: torch {}, worker pid {}\n", c.name,
                     ready.value("torch_version", "?"), ready.value("pid", 0));
  const auto started = std::chrono::steady_clock::now();
  const CaseOutcome outcome =
      RunCaseOnWorker(worker, c, out_dir / "inductor-cache",
                      std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout),
                      {.record_dir = out_dir / "recordings"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  json provenance = {{"tool_version", ToolVersion()},
                     {"torch_version", ready.value("torch_version", "")},
                     {"command_line", options.command_line},
                     {"case_provenance", c.provenance},
                     {"wall_seconds", seconds}};
  WriteCaseArtifacts(out_dir, c, outcome, provenance);
  std::filesystem::remove_all(out_dir / "scratch");

  std::size_t builds = 0;
  std::set<std::string> compilers;
  if (outcome.result.contains("builds"))
    for (const auto &build : outcome.result["builds"]) {
      ++builds;
      compilers.insert(build["compiler"].value("version", "?"));
    }
  out << fmt::format("  result: {}{}\n", outcome.status,
                     outcome.kind.empty() ? "" : " (" + outcome.kind + ")");
  if (outcome.result.contains("exception"))
    out << fmt::format("  exception: {}: {}\n", outcome.result["exception"].value("type", "?"),
                       outcome.result["exception"].value("normalized_message", ""));
  if (outcome.result.contains("detail"))
    out << "  " << outcome.result["detail"].get<std::string>() << "\n";
  if (!outcome.result.value("signature", "").empty())
    out << "  signature: " << outcome.result["signature"].get<std::string>() << "\n";
  out << fmt::format(
      "  captured {} compile command(s) with {}; {:.1f} s\n", builds,
      compilers.empty() ? "no compiler" : fmt::format("{}", fmt::join(compilers, ", ")), seconds);
  out << fmt::format("  wrote {}/result.json\n", out_dir.string());
  return outcome.status == "finding" ? 1 : 0;
}

} // namespace fuzzer
