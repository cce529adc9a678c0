#include "workflows/repro.h"

#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/standalone_run.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <vector>

namespace workflows {
namespace {

namespace fs = std::filesystem;

// The case behind an input: the file itself, a run record's case.json, or the first record of
// a corpus finding (findings/ID/records/*/case.json).
fs::path CaseFileOf(const fs::path &input) {
  if (!fs::exists(input))
    throw support::InputError(
        fmt::format("{} does not exist: give a case file or a finding's folder", input.string()));
  if (!fs::is_directory(input))
    return input;
  if (fs::exists(input / "case.json"))
    return input / "case.json";
  std::vector<fs::path> records;
  if (fs::is_directory(input / "records"))
    for (const auto &entry : fs::directory_iterator(input / "records"))
      if (fs::exists(entry.path() / "case.json"))
        records.push_back(entry.path() / "case.json");
  if (records.empty())
    throw support::InputError(fmt::format(
        "{} holds no case (no case.json, no records/*/case.json): give a case file, a run-case "
        "folder or a corpus finding's folder",
        input.string()));
  std::sort(records.begin(), records.end());
  return records.front();
}

// A script run and judged against a signature: the verdict scripts/verify-issue-drafts reads.
int JudgeScript(const ReproOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const fs::path &script = options.input;
  if (!fs::is_regular_file(script) || script.extension() != ".py")
    throw support::InputError(fmt::format(
        "--signature judges a repro script: {} is not a .py file (a case's own script comes "
        "from `repro CASE --out FILE`)",
        script.string()));
  if (options.signature->find('|') == std::string::npos)
    throw support::InputError(fmt::format(
        "--signature {} is not a signature (KIND|fact=value|...): copy it from the finding's "
        "record or the draft's Signature line",
        *options.signature));
  // The one place the kind is read from text: the signature given on the command line.
  const auto *row = corpus::RowOfSignature(*options.signature);
  if (!row)
    throw support::InputError(fmt::format(
        "--signature {} names no finding kind before its first '|' (`inductor-fuzz corpus "
        "kinds` lists them): copy it from the finding's record or the draft's Signature line",
        *options.signature));
  const auto judged =
      fuzzer::worker::RunStandalone(fs::absolute(script), paths.venv / "bin" / "python", row->kind,
                                    *options.signature, options.timeout);
  const std::string_view verdict = judged.reproduces ? "reproduces"
                                   : judged.passed   ? "passes"
                                                     : "fails-differently";
  out << fmt::format("repro: {}: {}\n", verdict, judged.how);
  return judged.reproduces ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace

int Repro(const ReproOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  if (options.signature)
    return JudgeScript(options, paths, out);
  const fs::path case_file = CaseFileOf(options.input);
  const corpus::Case c = corpus::LoadCaseFile(case_file);
  const std::string script = fuzzer::worker::EmitPythonScript(c);
  if (!options.out_file && !options.run) {
    out << script;
    return support::kExitNothingFound;
  }
  const fs::path file = options.out_file ? *options.out_file
                                         : fs::temp_directory_path() / ("repro-" + c.name + ".py");
  if (fs::is_directory(file))
    throw support::InputError(
        fmt::format("--out {} is a folder: give the script's file name", file.string()));
  if (file.has_parent_path())
    fs::create_directories(file.parent_path());
  support::WriteFileAtomically(file, script);
  out << fmt::format("repro: {} (case {} from {})\n", file.string(), c.name, case_file.string());
  if (!options.run)
    return support::kExitNothingFound;
  const fs::path python = paths.venv / "bin" / "python";
  out << fmt::format("repro: running {} {}\n", python.string(), file.string());
  out.flush();
  const auto run =
      support::RunCommand({python.string(), file.string()}, {}, options.timeout, 8u << 20);
  out << run.output;
  if (run.timed_out)
    throw support::InputError(fmt::format("{} did not finish in {} s: raise --timeout",
                                          file.string(), options.timeout.count()));
  if (run.status.exit_code == 2) // the script's INVALID CASE: eager or a contract failed
    throw support::InputError(fmt::format(
        "{}: the case is invalid, not a finding: the script stopped before torch.compile ran "
        "(INVALID CASE above; docs/contracts.md)",
        file.string()));
  out << fmt::format("repro: {}: {}\n", run.status.Describe(),
                     run.status.Succeeded() ? "passes (does not reproduce)" : "fails (reproduces)");
  return run.status.Succeeded() ? support::kExitNothingFound : support::kExitFindings;
}

} // namespace workflows
