#include "corpus/run_record.h"

#include "corpus/capture_origin.h"
#include "corpus/field_reader.h"
#include "corpus/record_fields.h"
#include "support/text_file.h"
#include "support/tool_paths.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace corpus {
namespace {

using nlohmann::json;

std::string SafeFileName(const std::string &path, std::size_t index) {
  std::string name = std::filesystem::path(path).filename().string();
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return fmt::format("{:02}-{}", index, name);
}

json ReadJsonFile(const std::filesystem::path &path, const std::string &what) {
  return ReadJsonDocument(path, what, "re-run the case that wrote it");
}

const RecordFields<StoredSource> &StoredSourceFields() {
  static const RecordFields<StoredSource> fields = {
      MemberField("captured_path", &StoredSource::captured_path),
      CustomField<StoredSource>(
          "stored", [](const StoredSource &source) { return FieldJson(source.stored.string()); },
          [](FieldReader &reader, const std::string &key, StoredSource &source) {
            source.stored = reader.String(key);
          })};
  return fields;
}

// One command as commands.json holds it, its paths relative to the file's folder (a record
// moves with its folder). What the capture's Python writes is read as leniently as before: a
// field of another type is passed over; a source entry and the command itself are strict.
const RecordFields<CompileCommand> &CommandFields() {
  static const RecordFields<CompileCommand> fields = {
      CustomField<CompileCommand>(
          "argv", [](const CompileCommand &command) { return FieldJson(command.argv); },
          [](FieldReader &reader, const std::string &key, CompileCommand &command) {
            const json &argv = reader.Required(key);
            if (!argv.is_array() || argv.empty() ||
                !std::all_of(argv.begin(), argv.end(),
                             [](const json &argument) { return argument.is_string(); }))
              throw FormatError(fmt::format("{} is not a list of strings", reader.Label(key)));
            command.argv = argv.get<std::vector<std::string>>();
          }),
      LenientMemberField("cwd", &CompileCommand::cwd),
      CustomField<CompileCommand>(
          "compiler",
          [](const CompileCommand &command) {
            return FieldJson{{"path", command.compiler_path},
                             {"version", command.compiler_version}};
          },
          [](FieldReader &reader, const std::string &key, CompileCommand &command) {
            if (const json *compiler = reader.Optional(key); compiler && compiler->is_object()) {
              command.compiler_path = compiler->value("path", "");
              command.compiler_version = compiler->value("version", "");
            }
          }),
      LenientMemberField("exit_code", &CompileCommand::exit_code),
      LenientMemberField("seconds", &CompileCommand::seconds),
      LenientMemberField("output", &CompileCommand::compiler_output),
      CustomField<CompileCommand>(
          "sources",
          [](const CompileCommand &command) {
            FieldJson sources = FieldJson::array();
            for (const auto &source : command.sources)
              sources.push_back(WriteFields<FieldJson>(StoredSourceFields(), source));
            return sources;
          },
          [](FieldReader &reader, const std::string &key, CompileCommand &command) {
            const json *sources = reader.Optional(key);
            if (sources && !sources->is_array())
              throw FormatError(fmt::format("{} must be a list", reader.Label(key)));
            for (std::size_t i = 0; sources && i < sources->size(); ++i) {
              FieldReader entry = reader.Nested((*sources)[i], fmt::format("{}[{}]", key, i));
              StoredSource source;
              ReadFields(StoredSourceFields(), entry, source);
              command.sources.push_back(std::move(source));
            }
          }),
      // A command without a recording names neither; one with a recording names its entry.
      CustomField<CompileCommand>(
          "recording",
          [](const CompileCommand &command) {
            return command.recording.empty() ? AbsentField()
                                             : FieldJson(command.recording.string());
          },
          [](FieldReader &reader, const std::string &key, CompileCommand &command) {
            if (const json *recording = reader.Optional(key); recording && !recording->is_null())
              command.recording = reader.String(key);
          }),
      CustomField<CompileCommand>(
          "entry",
          [](const CompileCommand &command) {
            return command.recording.empty() ? AbsentField() : FieldJson(command.entry);
          },
          [](FieldReader &reader, const std::string &key, CompileCommand &command) {
            const bool given = reader.Optional(key) != nullptr;
            if (!command.recording.empty())
              command.entry = given ? reader.String(key) : "kernel";
          })};
  return fields;
}

CompileCommand ReadCommand(const json &item, const std::filesystem::path &folder,
                           const std::string &where) {
  FieldReader reader(item, where, where);
  CompileCommand command;
  ReadFields(CommandFields(), reader, command);
  for (auto &source : command.sources) {
    const auto inside = PathInsideFolder(folder, source.stored.string());
    if (!inside)
      throw FormatError(fmt::format("{}.stored is {}, which is not inside the folder: a record "
                                    "names its copies relative to itself; re-capture it",
                                    reader.Label("sources"), source.stored.string()));
    source.stored = *inside;
  }
  // A campaign's record may name the recordings beside it (../recordings); a capture's is
  // checked to stay inside the capture (ReadCommandsFile).
  if (!command.recording.empty())
    command.recording = (folder / command.recording).lexically_normal();
  return command;
}

json CommandToJson(CompileCommand command, const std::filesystem::path &folder) {
  for (auto &source : command.sources)
    source.stored = source.stored.lexically_relative(folder);
  if (!command.recording.empty())
    command.recording = command.recording.lexically_relative(folder);
  return WriteFields(CommandFields(), command);
}

// What result.json adds to the worker's reply (which stays as the worker wrote it, with what the
// workflows add: `superseded`, `probe`, ...), read leniently for that reason. `kind` and
// `signature` are the finding's, for a reader of the file; the finding is the record.
struct StoredResult {
  CaseStatus status = CaseStatus::kPass;
  std::optional<Finding> finding;
  nlohmann::json provenance;
};

const RecordFields<StoredResult> &StoredResultFields() {
  const auto of_finding = [](std::string (*text)(const Finding &)) {
    return [text](const StoredResult &result) {
      return result.finding ? FieldJson(text(*result.finding)) : AbsentField();
    };
  };
  const auto passed_over = [](FieldReader &reader, const std::string &key, StoredResult &) {
    reader.Optional(key);
  };
  static const RecordFields<StoredResult> fields = {
      CustomField<StoredResult>(
          "format_version", [](const StoredResult &) { return FieldJson(kRunRecordFormatVersion); },
          passed_over), // checked before the fields, with the message to re-run the case
      CustomField<StoredResult>(
          "status", [](const StoredResult &result) { return FieldJson(StatusName(result.status)); },
          [](FieldReader &reader, const std::string &key, StoredResult &result) {
            const std::string name = reader.String(key);
            const auto status = StatusFromName(name);
            if (!status)
              throw FormatError(
                  fmt::format("{} is '{}', not a case status", reader.Label(key), name));
            result.status = *status;
          }),
      CustomField<StoredResult>("kind", of_finding([](const Finding &finding) {
                                  return std::string(KindName(finding.kind));
                                }),
                                passed_over),
      CustomField<StoredResult>("signature", of_finding(&Signature), passed_over),
      CustomField<StoredResult>(
          "finding",
          [](const StoredResult &result) {
            if (!result.finding)
              return AbsentField();
            Finding finding = *result.finding;
            finding.provenance = result.provenance;
            return FieldJson(FindingToJson(finding));
          },
          [](FieldReader &reader, const std::string &key, StoredResult &result) {
            if (const json *finding = reader.Optional(key))
              result.finding = FindingFromJson(*finding);
          }),
      CustomField<StoredResult>(
          "case", [](const StoredResult &) { return FieldJson("case.json"); }, passed_over),
      CustomField<StoredResult>(
          "provenance", [](const StoredResult &result) { return FieldJson(result.provenance); },
          [](FieldReader &reader, const std::string &key, StoredResult &result) {
            if (const json *provenance = reader.Optional(key))
              result.provenance = *provenance;
          })};
  return fields;
}

} // namespace

std::optional<std::filesystem::path> PathInsideFolder(const std::filesystem::path &folder,
                                                      const std::string &relative) {
  const std::filesystem::path path(relative);
  if (relative.empty() || path.is_absolute())
    return std::nullopt;
  for (const auto &part : path.lexically_normal())
    if (part == "..")
      return std::nullopt;
  return folder / path;
}

bool IsSharedPrecompiledHeader(const std::string &path) {
  return std::filesystem::path(path).parent_path().filename() == "precompiled_headers";
}

std::string OutputOfCommand(const std::vector<std::string> &argv) {
  const auto found = std::find(argv.begin(), argv.end(), "-o");
  return found == argv.end() || found + 1 == argv.end() ? "" : *(found + 1);
}

std::vector<std::string> CompileCommand::Inputs() const {
  std::vector<std::string> inputs;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-o")
      ++i;
    else if (!argv[i].starts_with("-"))
      inputs.push_back(argv[i]);
  }
  return inputs;
}

std::vector<CompileCommand> ReadCommandsFile(const std::filesystem::path &path) {
  const json document = ReadJsonFile(path, "commands file");
  const json *list = &document;
  if (document.is_object()) {
    FieldReader reader(document, "", path.string());
    const auto version = reader.Integer("format_version", 1);
    if (version != kRunRecordFormatVersion)
      throw FormatError(fmt::format("{} has format_version {}; this build reads {}: re-run "
                                    "`inductor-fuzz run-case` on its case.json",
                                    path.string(), version, kRunRecordFormatVersion));
    list = &reader.Required("commands");
    reader.RejectUnknown();
  }
  if (!list->is_array())
    throw FormatError(fmt::format("{} is not a commands.json as run-case writes it (an object "
                                  "with \"commands\", or a list)",
                                  path.string()));
  std::vector<CompileCommand> commands;
  const auto folder = std::filesystem::absolute(path).parent_path();
  for (std::size_t i = 0; i < list->size(); ++i) {
    try {
      commands.push_back(ReadCommand((*list)[i], folder, fmt::format("commands[{}]", i)));
    } catch (const FormatError &error) {
      throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
    }
  }
  const auto origin =
      ReadCaptureOrigin(folder, support::FindTorchEnvironments(support::ProjectRoot()));
  if (!origin)
    return commands;
  const std::string unavailable =
      origin->missing.empty()
          ? ""
          : fmt::format("headers missing: {} was captured with torch {} and Python {}, and this "
                        "machine lacks {}",
                        origin->capture_file.parent_path().string(), origin->torch_version,
                        origin->python_version, fmt::join(origin->missing, " and "));
  for (auto &command : commands) {
    // Inductor's shared precompiled header lives in the capturing machine's cache, outside the
    // capture; the TU includes what it holds itself (the matrix drops it too).
    std::vector<std::string> argv;
    for (std::size_t i = 0; i < command.argv.size(); ++i) {
      if (command.argv[i] == "-include" && i + 1 < command.argv.size() &&
          IsSharedPrecompiledHeader(command.argv[i + 1])) {
        ++i;
        continue;
      }
      argv.push_back(MapArgument(command.argv[i], origin->mappings));
    }
    command.argv = std::move(argv);
    command.unavailable = unavailable;
    // Kernels built for another ISA cannot run here: their TUs are compiled, not run. A
    // recording outside the capture is not the capture's to read: the command has none.
    const auto root = origin->capture_file.parent_path();
    if (!origin->runs_here ||
        !PathInsideFolder(root, command.recording.lexically_relative(root).string()))
      command.recording.clear();
  }
  return commands;
}

std::vector<std::filesystem::path> FindRunRecords(const std::vector<std::filesystem::path> &roots) {
  std::vector<std::filesystem::path> folders;
  for (const auto &root : roots) {
    if (std::filesystem::exists(root / "commands.json"))
      folders.push_back(std::filesystem::absolute(root));
    else if (std::filesystem::is_directory(root)) {
      // A folder another process is changing (a campaign's scratch, a shared /tmp) loses
      // entries under the walk: what vanished or cannot be read is skipped, and the walk goes
      // on with its siblings (a recursive iterator stops at its first error).
      std::vector<std::filesystem::path> pending{root};
      while (!pending.empty()) {
        const std::filesystem::path folder = std::move(pending.back());
        pending.pop_back();
        std::error_code error;
        std::filesystem::directory_iterator entries(
            folder, std::filesystem::directory_options::skip_permission_denied, error);
        for (; !error && entries != std::filesystem::directory_iterator();
             entries.increment(error)) {
          std::error_code status_error;
          const auto status = entries->symlink_status(status_error);
          if (status_error)
            continue;
          if (std::filesystem::is_directory(status))
            pending.push_back(entries->path());
          else if (entries->path().filename() == "commands.json")
            folders.push_back(std::filesystem::absolute(folder));
        }
      }
    }
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

json WriteCapturedBuilds(const std::filesystem::path &out_dir, json result) {
  using support::WriteFileAtomically;
  std::filesystem::create_directories(out_dir / "sources");
  std::vector<CompileCommand> commands;
  std::size_t index = 0;
  for (const auto &build : result.value("builds", json::array())) {
    CompileCommand command;
    command.argv = build.value("argv", std::vector<std::string>{});
    command.cwd = build.value("cwd", "");
    const json compiler = build.value("compiler", json::object());
    command.compiler_path = compiler.value("path", "");
    command.compiler_version = compiler.value("version", "");
    command.exit_code = build.value("exit_code", 0);
    command.seconds = build.value("seconds", 0.0);
    command.compiler_output = build.value("output", "");
    for (const auto &source : build.value("sources", json::array())) {
      const auto stored =
          out_dir / "sources" / SafeFileName(source.value("path", "source.cpp"), index++);
      WriteFileAtomically(stored, source.value("text", ""));
      command.sources.push_back({source.value("path", ""), stored});
    }
    for (auto &recording : result.contains("recordings") ? result["recordings"] : json::array())
      if (!command.Output().empty() && command.Output() == recording.value("module", "")) {
        command.recording = recording.value("file", "");
        command.entry = recording.value("entry", "kernel");
      }
    commands.push_back(std::move(command));
  }
  result.erase("builds");
  // In place: a conditional expression would give a copy to relativize.
  if (!result.contains("recordings"))
    result["recordings"] = json::array();
  for (auto &recording : result["recordings"]) {
    const auto relative =
        std::filesystem::path(recording.value("file", "")).lexically_relative(out_dir);
    if (!relative.empty() && !relative.string().starts_with(".."))
      recording["file"] = relative.string();
  }
  if (result.contains("wrappers")) {
    std::filesystem::create_directories(out_dir / "wrappers");
    std::size_t wrapper_index = 0;
    json stored_wrappers = json::array();
    for (const auto &wrapper : result["wrappers"]) {
      const auto stored = std::filesystem::path("wrappers") /
                          SafeFileName(wrapper.value("path", "wrapper.py"), wrapper_index++);
      WriteFileAtomically(out_dir / stored, wrapper.value("text", ""));
      stored_wrappers.push_back(stored.string());
    }
    result["wrappers"] = stored_wrappers;
  }
  json command_list = json::array();
  for (const auto &command : commands)
    command_list.push_back(CommandToJson(command, out_dir));
  WriteFileAtomically(
      out_dir / "commands.json",
      json{{"format_version", kRunRecordFormatVersion}, {"commands", command_list}}.dump(2) + "\n");
  result["commands"] = "commands.json";
  return result;
}

void CopyRecordings(json &result, const std::filesystem::path &from,
                    const std::filesystem::path &record_dir) {
  if (!result.contains("recordings") || !result["recordings"].is_array())
    return;
  std::filesystem::create_directories(record_dir / "recordings");
  for (auto &recording : result["recordings"]) {
    const std::filesystem::path file = recording.value("file", "");
    if (file.empty() || !std::filesystem::exists(file) || !file.string().starts_with(from.string()))
      continue;
    const auto copied = record_dir / "recordings" / file.filename();
    std::filesystem::copy_file(file, copied, std::filesystem::copy_options::overwrite_existing);
    recording["file"] = copied.string();
  }
}

void WriteRunRecord(const std::filesystem::path &out_dir, const Case &c, const RunResult &run,
                    const json &provenance) {
  using support::WriteFileAtomically;
  json result = WriteCapturedBuilds(out_dir, run.worker_result);
  result.update(
      WriteFields(StoredResultFields(), StoredResult{run.status, run.finding, provenance}));
  SaveCaseFile(out_dir / "case.json", c); // large tensors in sidecars next to it
  WriteFileAtomically(out_dir / "result.json", result.dump(2) + "\n");
}

RunRecord ReadRunRecord(const std::filesystem::path &folder) {
  RunRecord record;
  record.folder = std::filesystem::absolute(folder);
  record.result = ReadJsonFile(folder / "result.json", "result file");
  if (!record.result.is_object() || !record.result.contains("format_version"))
    throw FormatError(fmt::format("{} was written by an older inductor-fuzz (run record format "
                                  "1); re-run `inductor-fuzz run-case` on its case.json",
                                  folder.string()));
  const json &version = record.result["format_version"];
  if (!version.is_number_integer() || version.get<int>() != kRunRecordFormatVersion)
    throw FormatError(fmt::format("{} has run record format {}; this build reads {}: re-run "
                                  "`inductor-fuzz run-case` on its case.json",
                                  folder.string(), version.dump(), kRunRecordFormatVersion));
  StoredResult stored;
  try {
    FieldReader reader(record.result, "", "result.json");
    ReadFields(StoredResultFields(), reader, stored, UnknownFields::kIgnored);
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}/result.json: {}", folder.string(), error.what()));
  }
  record.status = stored.status;
  record.finding = std::move(stored.finding);
  if (record.status == CaseStatus::kFinding && !record.finding)
    throw FormatError(fmt::format("{}/result.json: status is finding but there is no 'finding'",
                                  folder.string()));
  record.c = LoadCaseFile(folder / "case.json");
  record.commands = ReadCommandsFile(folder / "commands.json");
  return record;
}

} // namespace corpus
