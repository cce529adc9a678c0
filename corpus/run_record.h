#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// A run record is the folder `run-case` writes: result.json, case.json, commands.json,
// sources/, wrappers/, recordings/. This file is its one writer and its one reader.
inline constexpr int kRunRecordFormatVersion = 2;

// `relative` under `folder`, when it names a path inside it; nullopt for an absolute path or
// one through "..". A folder from another machine is read, never followed out of.
std::optional<std::filesystem::path> PathInsideFolder(const std::filesystem::path &folder,
                                                      const std::string &relative);

// Whether `path` (the argument of a command's -include) is Inductor's shared precompiled
// header, which lives in the building machine's cache: every rebuild here leaves it out (the TU
// includes what it holds itself).
bool IsSharedPrecompiledHeader(const std::string &path);

// What a compile command writes: the argument of its -o, or empty. The one parser of -o.
std::string OutputOfCommand(const std::vector<std::string> &argv);

struct StoredSource {
  std::string captured_path;    // where Inductor wrote it
  std::filesystem::path stored; // the copy in the record (absolute once read)
};

// One compile Inductor ran, as commands.json stores it.
struct CompileCommand {
  std::vector<std::string> argv;
  std::string cwd;
  std::string compiler_path;
  std::string compiler_version;
  int exit_code = 0;
  double seconds = 0;
  std::string compiler_output;
  std::vector<StoredSource> sources;
  std::filesystem::path recording; // its module's recorded kernel calls (absolute), if any
  std::string entry;               // the recorded module's entry point
  // Why it cannot be rebuilt here, or empty: a capture from another machine whose headers
  // (its torch release, its Python) this machine lacks (corpus/capture_origin.h).
  std::string unavailable;
  std::string Output() const { return OutputOfCommand(argv); }
  // The arguments that are not flags: sources, objects and libraries it reads.
  std::vector<std::string> Inputs() const;
};

// Reads commands.json: version 2 ({"format_version", "commands"}) and version 1 (a bare
// list). Relative paths are resolved against the file's folder; in a capture, the other
// machine's torch and Python roots are mapped onto this machine's (corpus/capture_origin.h). Throws
// FormatError naming the file and the entry for anything else.
std::vector<CompileCommand> ReadCommandsFile(const std::filesystem::path &path);

// Every run record at or under `roots` (folders holding commands.json), sorted.
std::vector<std::filesystem::path> FindRunRecords(const std::vector<std::filesystem::path> &roots);

// What a worker returned for a case, and the finding the driver made of it.
struct RunResult {
  CaseStatus status = CaseStatus::kPass;
  std::optional<Finding> finding;
  nlohmann::json worker_result; // as the worker replied: builds with source texts, wrappers...
};

// Writes what a worker captured (`result`'s builds, wrappers and recordings, as the worker
// replies) into out_dir: sources/ and wrappers/ as files, and commands.json. Returns `result`
// without its builds, with the wrappers' stored paths and recordings relative to out_dir.
// `run-case` and `capture` both store through it.
nlohmann::json WriteCapturedBuilds(const std::filesystem::path &out_dir, nlohmann::json result);

// Copies each recording `result` names that lies under `from` into record_dir/recordings and
// points `result` at the copy: a run's scratch (or an imported capture) outlives no record.
void CopyRecordings(nlohmann::json &result, const std::filesystem::path &from,
                    const std::filesystem::path &record_dir);

// Writes the record into out_dir: sources and wrappers as files, commands.json, case.json and
// result.json, each written to a temporary name and renamed.
void WriteRunRecord(const std::filesystem::path &out_dir, const Case &c, const RunResult &run,
                    const nlohmann::json &provenance);

struct RunRecord {
  std::filesystem::path folder;
  Case c;
  CaseStatus status = CaseStatus::kPass;
  std::optional<Finding> finding;
  std::vector<CompileCommand> commands;
  nlohmann::json result; // result.json as stored
};

// Reads and validates a record. A record from an older format is refused with a message that
// says to re-run its case.
RunRecord ReadRunRecord(const std::filesystem::path &folder);

} // namespace corpus
