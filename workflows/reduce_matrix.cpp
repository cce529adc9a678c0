#include "workflows/reduce_matrix.h"

#include "workflows/templates.h"

#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "fuzzer/worker/worker_python.h"
#include "reducers/case/case_reducer.h"
#include "reducers/case/minimal_repro.h"
#include "reducers/source/compile_probe.h"
#include "reducers/source/interestingness.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/interrupt.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/case_input.h"
#include "workflows/reduce_source.h"
#include "workflows/run_case.h"
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

// A matrix finding's reduction after its case: repro.sh with each compiler, and the TU (or,
// for a Python-wrapper kernel's runtime divergence, a program of it) through the source reducer.
namespace workflows {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The row of the final run's matrix with the finding kept (else the first with one of its kind).
const corpus::MatrixRow *RowWithFinding(const corpus::MatrixRecord &record,
                                        const std::string &signature, corpus::FindingKind kind) {
  const corpus::MatrixRow *same_kind = nullptr;
  for (const auto &row : record.rows)
    for (const auto &finding : row.Findings()) {
      if (corpus::Signature(finding) == signature)
        return &row;
      if (finding.kind == kind && !same_kind)
        same_kind = &row;
    }
  return same_kind;
}

} // namespace

// repro.sh of a matrix finding: the reduced case's TU (kernel.cpp beside it) built by each
// compiler with the command the matrix ran; for a load error or a runtime divergence each module
// built is then loaded and run on the calls Inductor's own run of the reduced case recorded
// (calls.pt, replayed by kernel_replay.py, the worker's own replay.py), with the venv's torch. One
// line per compiler; exit 1 while they disagree, 0 when they agree.
std::string MatrixReproScript(const corpus::MatrixRow &row, bool replay,
                              const std::string &signature, const fs::path &python) {
  std::string builds;
  std::size_t index = 0;
  for (const auto &build : row.builds) {
    auto argv = CommandOfBuild(build);
    if (!argv)
      continue;
    (*argv)[reducers::SourceArgument(*argv)] = "@SOURCE@";
    bool named = false;
    for (std::size_t i = 0; i + 1 < argv->size(); ++i)
      if ((*argv)[i] == "-o") {
        (*argv)[i + 1] = "@OUTPUT@";
        named = true;
      }
    if (!named)
      argv->insert(argv->end(), {"-o", "@OUTPUT@"});
    std::string command = reducers::JoinCommand(*argv);
    const std::string output = fmt::format("\"$out\"/build-{}.so", index);
    command.replace(command.find("@SOURCE@"), 8, "\"$dir\"/kernel.cpp");
    command.replace(command.find("@OUTPUT@"), 8, output);
    builds += fmt::format(
        "if {} >\"$out\"/build-{}.log 2>&1; then\n"
        "  {}\nelse\n  verdict {} \"does not build: $(grep -m1 'error' \"$out\"/build-{}.log)\"\n"
        "fi\n",
        command, index,
        replay ? fmt::format("v=$(REPRO_DIR=\"$dir\" replay {}) || v=\"crashed: exit $?\"; "
                             "verdict {} \"$v\"",
                             output, reducers::ShellQuote(build.compiler))
               : fmt::format("verdict {} builds", reducers::ShellQuote(build.compiler)),
        reducers::ShellQuote(build.compiler), index);
    ++index;
  }
  const std::string replay_function =
      replay ? support::FillTemplate(Template("matrix_replay.sh.tmpl"),
                                     {{"PYTHON", reducers::ShellQuote(python.string())}})
             : "";
  return support::FillTemplate(
      Template("matrix_repro.sh.tmpl"),
      {{"SIGNATURE", signature},
       {"TU", row.tu},
       {"REPLAY_NOTE", replay ? ", each module then loaded and run on the kernel calls recorded "
                                "in Inductor's own run (calls.pt) and compared with what "
                                "Inductor's build wrote"
                              : ""},
       {"REPLAY_FUNCTION", replay_function},
       {"BUILDS", builds}});
}

// A main for a Python-wrapper kernel's TU: kernel() once on the first recorded call's inputs
// (the storages dumped beside it), then what every tensor argument holds, printed (its first
// elements and a hash of its storage), so that two compilers' programs can be compared.
std::string KernelMain(const json &call, const fs::path &folder) {
  static const std::map<std::string, std::pair<std::string, std::string>> kPrinted = {
      {"float32", {"float", "%g"}},      {"float64", {"double", "%g"}},
      {"int32", {"int", "%d"}},          {"int64", {"long long", "%lld"}},
      {"bool", {"bool", "%d"}},          {"int8", {"signed char", "%d"}},
      {"uint8", {"unsigned char", "%d"}}};
  std::string reads;
  for (int number = 0; number < call.value("storages", 0); ++number)
    reads += fmt::format("  std::vector<char> s{} = Read(\"{}\");\n", number,
                         (folder / fmt::format("storage-{}.bin", number)).string());
  std::string arguments;
  std::string prints;
  int position = 0;
  for (const auto &argument : call.value("args", json::array())) {
    const std::string kind = argument.value("kind", "");
    std::string value;
    if (kind == "tensor") {
      const int storage = argument.value("storage", 0);
      const long long offset = argument.value("offset", 0LL) * argument.value("itemsize", 1LL);
      value = fmt::format("Pointer{{s{}.data() + {}}}", storage, offset);
      const auto printed = kPrinted.find(argument.value("dtype", ""));
      prints += fmt::format("  std::printf(\"argument {}: storage {} hash %016llx:\", "
                            "Hash(s{}));\n",
                            position, storage, storage);
      if (printed != kPrinted.end())
        prints += fmt::format(
            "  for (std::size_t i = 0; i < 16 && {} + (i + 1) * sizeof({}) <= s{}.size(); ++i)\n"
            "    std::printf(\" {}\", reinterpret_cast<const {} *>(s{}.data() + {})[i]);\n",
            offset, printed->second.first, storage, printed->second.second, printed->second.first,
            storage, offset);
      prints += "  std::printf(\"\\n\");\n";
    } else if (kind == "bool") {
      value = argument.value("value", false) ? "true" : "false";
    } else if (kind == "int") {
      value = fmt::format("{}LL", argument.value("value", 0LL));
    } else if (kind == "float") {
      value = fmt::format("{}", argument.value("value", 0.0));
    } else {
      value = "nullptr";
    }
    arguments += (arguments.empty() ? "" : ", ") + value;
    ++position;
  }
  return support::FillTemplate(Template("kernel_main.cpp.tmpl"),
                               {{"STORAGE_FOLDER", folder.string()},
                                {"READS", reads},
                                {"ARGUMENTS", arguments},
                                {"PRINTS", prints}});
}

namespace {

// A runtime divergence of a Python-wrapper kernel, as a program: the TU with a main that runs
// the first recorded call (OUT/program/), reduced with `reduce --cpp --compilers --run` on the
// compilers whose builds ran, into OUT/source. Empty when done, else why it cannot be.
std::string ReduceKernelAsProgram(const ReduceOptions &options, const fs::path &out_dir,
                                  const corpus::MatrixRow &row, const support::ToolPaths &paths,
                                  json &report, int &status, std::ostream &out) {
  if (row.recording.empty())
    return "the TU has no recorded calls";
  const fs::path folder = out_dir / "program";
  fs::remove_all(folder);
  fs::create_directories(folder);
  // The first recorded call's storages and arguments, dumped by the venv's torch.
  const std::string dump_first_call(
      fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.first_call"));
  const auto dumped = support::RunCommand({(paths.venv / "bin" / "python").string(), "-c",
                                           dump_first_call, row.recording, folder.string()},
                                          {}, std::chrono::seconds(options.case_timeout_seconds));
  const json call =
      json::parse(dumped.output.substr(dumped.output.rfind("\n{") + 1), nullptr, false);
  if (!dumped.status.Succeeded() || !call.is_object())
    return "its recorded call could not be read: " + dumped.status.Describe();
  if (call.value("entry", "") != "kernel")
    return "it is a cpp_wrapper module (entry " + call.value("entry", "") +
           "): the source reducer cannot give such a TU a main yet";
  // The compilers whose builds ran, one that agrees with Inductor's build first: the reference.
  std::vector<const corpus::BuildRecord *> ran;
  for (const auto &build : row.builds)
    if (build.built && !build.runtime.empty() && CommandOfBuild(build))
      ran.insert(build.runtime == "same" ? ran.begin() : ran.end(), &build);
  if (ran.size() < 2 || ran.front()->runtime != "same")
    return "fewer than two of its builds ran, one of them as Inductor's";
  auto command = *CommandOfBuild(*ran.front());
  std::erase(command, std::string("-shared"));
  const fs::path program = folder / "program.cpp";
  command[reducers::SourceArgument(command)] = program.string();
  std::vector<std::string> libraries = {"-lpython3.11"};
  for (const auto &word : command)
    if (word.starts_with("-L"))
      libraries.push_back("-Wl,-rpath," + word.substr(2));
  command.insert(command.end(), libraries.begin(), libraries.end());
  support::WriteFileAtomically(program, support::ReadTextFile(row.source, "C++ source", 16u << 20) +
                                            KernelMain(call, folder));
  ReduceOptions source = options;
  source.input.clear();
  source.cpp_file = program;
  source.compile_command = command;
  source.compilers.clear();
  for (const auto *build : ran)
    source.compilers.push_back(build->compiler);
  source.run_programs = true;
  source.out_dir = out_dir / "source";
  out << "reduce: the kernel diverges at run time: its TU, given a main that runs the first "
         "recorded call (program/program.cpp), is reduced as a program on the same compilers\n";
  try {
    status = std::max(status, ReduceSource(source, paths, out));
    report["source"] = "source/reduced.cpp";
  } catch (const support::InputError &error) {
    return std::string("as a program it does not diverge: ") + error.what();
  }
  return "";
}

// A matrix finding after its case is reduced: the reduced case's last run (OUT/reduced-run)
// gives the TU and its commands; repro.sh shows the divergence and is run once; a compiler
// divergence's TU then goes through the source reducer. Returns the exit status and fills in
// the report.
} // namespace

int FinishMatrixReduction(const ReduceOptions &options, const fs::path &out_dir,
                          const reducers::CaseReduction &reduction, corpus::FindingKind kind,
                          const support::ToolPaths &paths, json &report, std::ostream &out) {
  const fs::path run_dir = out_dir / "reduced-run";
  report["repro_script"] = "repro.sh";
  report["repro_reproduces"] = false;
  report["final_run_signature"] = reduction.final_run_signature;
  if (reduction.interrupted) {
    report["repro_run"] = "interrupted: the best case so far is in case.json; no repro.sh";
    out << "reduce: interrupted: the best case so far is in case.json; no repro.sh\n";
    return support::kExitFindings;
  }
  if (!fs::exists(run_dir / "matrix.json")) {
    report["repro_run"] = "the reduced case's last run captured no TU";
    out << "reduce: the reduced case's last run captured no TU: no repro.sh\n";
    return support::kExitFindings;
  }
  const auto record = corpus::ReadMatrixRecord(run_dir / "matrix.json");
  const corpus::MatrixRow *row = RowWithFinding(record, reduction.signature, kind);
  if (!row) {
    report["repro_run"] = "the reduced case's last run no longer diverges";
    out << fmt::format("reduce: the reduced case's last run no longer gives {} (it gave {}): no "
                       "repro.sh\n",
                       reduction.signature,
                       reduction.final_run_signature.empty() ? "nothing"
                                                             : reduction.final_run_signature);
    return support::kExitFindings;
  }
  const bool replay = kind != corpus::FindingKind::kCompilerDivergence && !row->recording.empty();
  fs::copy_file(row->source, out_dir / "kernel.cpp", fs::copy_options::overwrite_existing);
  if (replay) {
    fs::copy_file(row->recording, out_dir / "calls.pt", fs::copy_options::overwrite_existing);
    support::WriteFileAtomically(
        out_dir / "kernel_replay.py",
        std::string(fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.replay")));
  }
  const fs::path repro = out_dir / "repro.sh";
  support::WriteFileAtomically(
      repro, MatrixReproScript(*row, replay, reduction.signature, paths.venv / "bin" / "python"));
  fs::permissions(repro, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  const auto run = support::RunCommand({"/bin/sh", repro.string()}, {},
                                       std::chrono::seconds(options.case_timeout_seconds));
  const bool reproduces = !run.timed_out && run.status.exit_code == 1;
  std::string shown = run.output;
  while (!shown.empty() && shown.back() == '\n')
    shown.pop_back();
  report["repro_reproduces"] = reproduces;
  report["repro_run"] = run.timed_out ? "timed out" : shown;
  report["repro_tu"] = row->tu;
  out << fmt::format("reduce: {} ({}): {}\n", repro.string(), row->tu,
                     reproduces ? "the compilers disagree" : "DOES NOT show the divergence");
  out << shown << "\n";
  int status = reproduces ? support::kExitNothingFound : support::kExitFindings;
  support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
  if (reduction.interrupted)
    return status;
  if (kind == corpus::FindingKind::kCompilerDivergence) {
    out << "reduce: the divergence lives in a TU: reducing its source on the same compilers\n";
    ReduceOptions source = options;
    source.input.clear();
    source.compilers.clear();
    source.matrix_record = run_dir / "matrix.json";
    source.tu = row->tu;
    source.out_dir = out_dir / "source";
    try {
      const int source_status = ReduceSource(source, paths, out);
      report["source"] = "source/reduced.cpp";
      status = std::max(status, source_status);
    } catch (const support::InputError &error) {
      report["source"] = std::string("not reduced: ") + error.what();
      out << fmt::format("reduce: the source is not reduced: {}\n", error.what());
    }
  } else if (kind == corpus::FindingKind::kRuntimeDivergence) {
    const std::string why =
        ReduceKernelAsProgram(options, out_dir, *row, paths, report, status, out);
    if (!why.empty()) {
      report["source"] = "not reduced: " + why;
      out << fmt::format("reduce: the source is not reduced: {} (repro.sh shows the reduced "
                         "case's TU diverging)\n",
                         why);
    }
  } else {
    const std::string why = "a load error: the source reducer has no load test yet, so the "
                            "source is not reduced (repro.sh shows the reduced case's TU failing "
                            "to load)";
    report["source"] = "not reduced: " + why;
    out << "reduce: " << why << "\n";
  }
  return status;
}

} // namespace workflows
