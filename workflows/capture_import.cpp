#include "workflows/capture_import.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/field_reader.h"
#include "corpus/finding_store.h"
#include "corpus/run_record.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_client.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>

#include <ostream>
#include <sstream>

namespace workflows {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// capture.json's format, as inductor_fuzz_worker/capture_folder.py writes it.
constexpr int kCaptureFormatVersion = 1;
constexpr std::size_t kSourceLimit = std::size_t{64} << 20;

// One case of the capture, read and checked, ready to store.
struct ImportedCase {
  fs::path folder;
  corpus::Case c;
  fuzzer::worker::CaseOutcome outcome;
};

json ReadCaptureFile(const fs::path &capture) {
  const fs::path file = capture / "capture.json";
  if (!fs::is_directory(capture) || !fs::exists(file))
    throw support::InputError(
        fmt::format("{} is not a capture folder (no capture.json): give a folder `python -m "
                    "inductor_fuzz_capture --cases` wrote",
                    capture.string()));
  const json document = corpus::ReadJsonDocument(file, "capture file", "capture it again");
  corpus::FieldReader reader(document, "", file.string());
  const auto version = reader.Integer("format_version", 0);
  if (version != kCaptureFormatVersion)
    throw support::InputError(fmt::format(
        "{} has capture format {}; this build reads {}: {}", file.string(), version,
        kCaptureFormatVersion,
        version > kCaptureFormatVersion ? "update inductor-fuzz to the capture package's version"
                                        : "capture it again with this version's package"));
  if (document.value("kind", "program") != "cases")
    throw support::InputError(fmt::format(
        "{} is a program's capture: check, matrix and compare take it as it is; corpus import "
        "takes a capture of cases (python -m inductor_fuzz_capture --cases FILE)",
        capture.string()));
  return document;
}

// A folder the capture names, which must lie inside it.
fs::path CaseFolder(const fs::path &capture, const std::string &relative) {
  const auto inside = corpus::PathInsideFolder(capture, relative);
  if (!inside || !fs::is_directory(*inside))
    throw support::InputError(fmt::format("{}/capture.json names case folder '{}', which is not a "
                                          "folder inside the capture; capture it again",
                                          capture.string(), relative));
  return *inside;
}

// The reply as the worker gave it to the package, its builds put back from the folder's
// commands.json (where the capture stored them) and its recordings made absolute.
fuzzer::worker::WorkerReply ReplyOf(const fs::path &folder) {
  const json stored =
      corpus::ReadJsonDocument(folder / "reply.json", "reply file", "capture the case again");
  corpus::FieldReader reader(stored, "", (folder / "reply.json").string());
  const std::string status = reader.String("status");
  fuzzer::worker::WorkerReply reply;
  if (status == "ok") {
    json result = reader.Required("result");
    if (!result.is_object())
      throw corpus::FormatError(
          fmt::format("{}/reply.json: 'result' is not an object", folder.string()));
    json builds = json::array();
    for (const auto &command : corpus::ReadCommandsFile(folder / "commands.json")) {
      json sources = json::array();
      for (const auto &source : command.sources)
        sources.push_back(
            {{"path", source.captured_path},
             {"text", support::ReadTextFile(source.stored, "captured source", kSourceLimit)}});
      builds.push_back(
          {{"argv", command.argv},
           {"cwd", command.cwd},
           {"compiler", {{"path", command.compiler_path}, {"version", command.compiler_version}}},
           {"exit_code", command.exit_code},
           {"seconds", command.seconds},
           {"output", command.compiler_output},
           {"sources", sources}});
    }
    result["builds"] = std::move(builds);
    // The wrappers as the worker replied them ({path, text}), from the copies the capture made
    // ("wrappers/NN-name": the name as it was, without the NN- the copy got).
    json wrappers = json::array();
    for (const auto &stored_wrapper : result.value("wrappers", json::array())) {
      const auto inside = stored_wrapper.is_string()
                              ? corpus::PathInsideFolder(folder, stored_wrapper.get<std::string>())
                              : std::nullopt;
      if (!inside)
        throw corpus::FormatError(fmt::format("{}/reply.json: wrapper {} is not a file inside "
                                              "the case's folder; capture the case again",
                                              folder.string(), stored_wrapper.dump()));
      const std::string name = inside->filename().string();
      wrappers.push_back(
          {{"path", name.substr(name.find('-') + 1)},
           {"text", support::ReadTextFile(*inside, "captured wrapper", kSourceLimit)}});
    }
    result["wrappers"] = std::move(wrappers);
    for (auto &recording : result.contains("recordings") ? result["recordings"] : json::array()) {
      const auto inside = corpus::PathInsideFolder(folder, recording.value("file", ""));
      recording["file"] = inside ? inside->string() : ""; // never read outside the capture
    }
    reply.message = {{"result", std::move(result)}};
    return reply;
  }
  if (status != "crashed" && status != "timed_out")
    throw corpus::FormatError(fmt::format("{}/reply.json: status '{}' is not ok, crashed or "
                                          "timed_out; capture the case again",
                                          folder.string(), status));
  reply.status = status == "crashed" ? fuzzer::worker::ReplyStatus::kCrashed
                                     : fuzzer::worker::ReplyStatus::kTimedOut;
  const json exit = stored.value("exit", json::object());
  if (exit.contains("code") && exit["code"].is_number_integer())
    reply.exit.exit_code = exit["code"].get<int>();
  if (exit.contains("signal") && exit["signal"].is_number_integer())
    reply.exit.signal = exit["signal"].get<int>();
  reply.detail = stored.value("detail", "");
  std::istringstream tail(stored.value("log", "")), again(stored.value("log", ""));
  reply.stderr_tail = fuzzer::worker::LastLogLine(tail);
  reply.abort_message = fuzzer::worker::AbortMessageIn(again);
  return reply;
}

ImportedCase ReadCase(const fs::path &folder) {
  json request =
      corpus::ReadJsonDocument(folder / "request.json", "request file", "capture the case again");
  if (!request.is_object() || !request.contains("case"))
    throw corpus::FormatError(
        fmt::format("{}/request.json has no 'case'; capture the case again", folder.string()));
  // A case run on a GPU is stored as the CPU case it is here (its device stays in the hit's
  // provenance): this machine replays and reduces it on the CPU.
  json &c = request["case"];
  if (c.contains("create_block_mask") && c["create_block_mask"].is_object() &&
      c["create_block_mask"].contains("device"))
    c["create_block_mask"]["device"] = "cpu";
  ImportedCase imported{.folder = folder, .c = corpus::CaseFromJson(c), .outcome = {}};
  imported.outcome =
      fuzzer::worker::OutcomeOfReply(imported.c, ReplyOf(folder), folder / "recordings");
  return imported;
}

} // namespace

int ImportCapture(const CaptureImportOptions &options, std::ostream &out) {
  const fs::path capture = fs::absolute(options.capture).lexically_normal();
  const json document = ReadCaptureFile(capture);
  const json origin = document.value("provenance", json::object());
  // Everything is read and checked first: a folder with one bad case stores nothing.
  std::vector<ImportedCase> cases;
  for (const auto &listed : document.value("cases", json::array())) {
    const fs::path folder = CaseFolder(capture, listed.value("folder", ""));
    try {
      cases.push_back(ReadCase(folder));
    } catch (const corpus::FormatError &error) {
      throw support::InputError(fmt::format("{}: {}", folder.string(), error.what()));
    }
  }
  out << fmt::format("corpus import: {} case(s) captured with torch {} on {} (Python {}, {}) by "
                     "{} {}\n",
                     cases.size(), origin.value("torch", "?"), origin.value("device", "cpu"),
                     origin.value("python", "?"), origin.value("machine", "?"),
                     origin.value("tool", "?"), origin.value("tool_version", "?"));

  corpus::FindingStore store(options.corpus);
  const std::string now = corpus::UtcNow();
  std::size_t findings = 0, fresh = 0;
  for (auto &imported : cases) {
    const auto &outcome = imported.outcome;
    if (!outcome.finding) {
      out << fmt::format("  {}: {}\n", imported.c.name, outcome.Status());
      continue;
    }
    ++findings;
    const json provenance = {
        {"tool_version", support::ToolVersion()},    {"torch_version", origin.value("torch", "")},
        {"command_line", options.command_line},      {"case_provenance", imported.c.provenance},
        {"imported_from", imported.folder.string()}, {"captured_on", origin}};
    const auto stored = store.Record(
        *outcome.finding, corpus::MakeHit(imported.c, provenance, now),
        [&](const fs::path &record_dir) {
          json result = outcome.result;
          corpus::CopyRecordings(result, imported.folder, record_dir);
          corpus::WriteRunRecord(record_dir, imported.c, {outcome.status, outcome.finding, result},
                                 provenance);
          support::WriteFileAtomically(record_dir / "repro.py",
                                       fuzzer::worker::EmitPythonScript(imported.c));
        });
    fresh += stored == corpus::StoreOutcome::kNew;
    out << fmt::format("  {}: {} ({}) {}: {}\n", imported.c.name, outcome.Status(), outcome.Kind(),
                       stored == corpus::StoreOutcome::kNew ? "new" : "known",
                       corpus::Signature(*outcome.finding));
  }
  const auto bugs = corpus::GroupIntoBugs(store.List());
  out << fmt::format("corpus import: {} finding(s), {} new signature(s); {} now holds {} bug(s) "
                     "(inductor-fuzz corpus list --corpus {})\n",
                     findings, fresh, options.corpus.string(), bugs.size(),
                     options.corpus.string());
  return findings ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
