#include "workflows/reduce_case.h"

#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "reducers/case/case_reducer.h"
#include "reducers/case/minimal_repro.h"
#include "reducers/source/compile_probe.h"
#include "reducers/source/interestingness.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/case_input.h"
#include "workflows/run_case.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace workflows {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Set by SIGINT/SIGTERM: the reducer stops and the best case so far stays on disk.
std::atomic<bool> reduce_stop_requested{false};

extern "C" void RequestReduceStop(int signal_number) {
  reduce_stop_requested = true;
  std::signal(signal_number, SIG_DFL);
}

std::size_t Lines(const std::string &text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A failure that lives in one TU (a compile error, a static finding): after the case, the
// source is reduced too.
bool IsSourceFailure(const std::string &signature) {
  const auto *row = corpus::RowOfSignature(signature);
  return row && row->in_one_tu;
}

bool IsKind(const std::string &signature, corpus::FindingKind kind) {
  const auto *row = corpus::RowOfSignature(signature);
  return row && row->kind == kind;
}

// The reduced case runs once more under capture; the TU it fails on goes to the source reducer
// (its compile command's first error, or our analysis when it compiles).
int ReduceFailingSource(const ReduceOptions &options, const fs::path &out_dir,
                        const std::string &signature, const support::ToolPaths &paths,
                        std::ostream &out) {
  const fs::path run_dir = out_dir / "reduced-run";
  fs::remove_all(run_dir);
  RunCase({.case_file = out_dir / "case.json",
           .out_dir = run_dir,
           .timeout = std::chrono::seconds(options.case_timeout_seconds),
           .command_line = options.command_line},
          paths, out);
  const auto commands = corpus::ReadCommandsFile(run_dir / "commands.json");
  const bool compile_error = IsKind(signature, corpus::FindingKind::kCompileError);
  for (const auto &command : commands) {
    if (command.sources.size() != 1 || (compile_error && command.exit_code == 0))
      continue;
    ReduceOptions source = options;
    source.input.clear();
    source.cpp_file = command.sources.front().stored;
    source.compile_command = command.argv;
    for (auto &word : source.compile_command)
      if (word == command.sources.front().captured_path)
        word = command.sources.front().stored.string();
    source.out_dir = out_dir / "source";
    try {
      return ReduceSource(source, paths, out);
    } catch (const support::InputError &error) {
      if (compile_error)
        throw;
      out << fmt::format("reduce: {}: {}\n", command.sources.front().stored.filename().string(),
                         error.what()); // not the TU with the finding: the next one
    }
  }
  out << "reduce: no captured TU of the reduced case fails on its own; the source is not reduced\n";
  return support::kExitFindings;
}

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

// repro.sh of a matrix finding: the reduced case's TU (kernel.cpp beside it) built by each
// compiler with the command the matrix ran; for a load error or a runtime divergence each module
// built is then loaded and run on the calls Inductor's own run of the reduced case recorded
// (calls.pt, replayed by kernels.py, the worker's own replay), with the venv's torch. One line
// per compiler; exit 1 while they disagree, 0 when they agree.
std::string MatrixReproScript(const corpus::MatrixRow &row, bool replay,
                              const std::string &signature, const fs::path &python) {
  std::string script = fmt::format(
      "#!/bin/sh\n# {}\n# {}'s TU (kernel.cpp) built by each compiler as the compiler matrix "
      "builds it{}.\n# One line per compiler; exit 1 while they disagree, 0 when they agree.\n"
      "dir=$(cd \"$(dirname \"$0\")\" && pwd)\nout=$(mktemp -d)\ntrap 'rm -rf \"$out\"' EXIT\n"
      "keys=\nverdict() {{ echo \"$1: $2\"; keys=\"$keys|${{2%%:*}}\"; }}\n",
      signature, row.tu,
      replay ? ", each module then loaded and run on the kernel calls recorded in Inductor's own "
               "run (calls.pt) and compared with what Inductor's build wrote"
             : "");
  if (replay)
    script += fmt::format(
        "replay() {{\n  {} - \"$1\" \"$dir/calls.pt\" <<'EOF'\n"
        "import os, sys\nsys.path.insert(0, os.environ['REPRO_DIR'])\nimport torch, kernels\n"
        "try:\n    result = kernels.replay(sys.argv[1], None, sys.argv[2])\n"
        "except Exception as error:\n"
        "    print('does not load or run:', type(error).__name__, str(error).split(chr(10))[0])\n"
        "    sys.exit(0)\nworst = result['worst']\nif not worst:\n"
        "    print('same: every tensor as Inductor\\'s build left it')\nelse:\n"
        "    print('differs: {{}} ({{}}) at {{}}: {{}} instead of {{}}, {{}} element(s) "
        "differ'.format(\n"
        "        worst.get('argument'), worst.get('dtype'), worst.get('index'), "
        "worst.get('actual'),\n"
        "        worst.get('expected'), worst.get('mismatched_elements')))\nEOF\n}}\n",
        reducers::ShellQuote(python.string()));
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
    script += fmt::format(
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
  script += "if [ \"$(echo \"${keys#|}\" | tr '|' '\\n' | sort -u | wc -l)\" -gt 1 ]; then\n"
            "  echo 'the compilers disagree'; exit 1\nfi\necho 'the compilers agree'; exit 0\n";
  return script;
}

// What a recording's first call passes to a Python-wrapper kernel, dumped by the venv's torch:
// each storage before the call to storage-N.bin in `folder`, and the arguments (JSON).
constexpr const char *kDumpFirstCall = R"(import json, sys, torch
recording = torch.load(sys.argv[1], weights_only=True)
call = recording["calls"][0]
for number, storage in enumerate(call["before"]):
    with open(f"{sys.argv[2]}/storage-{number}.bin", "wb") as out:
        out.write(storage.numpy().tobytes())
arguments = []
for argument in call["args"]:
    argument = dict(argument)
    if argument["kind"] == "tensor":
        argument["itemsize"] = torch.empty(0, dtype=getattr(torch, argument["dtype"])).element_size()
    arguments.append(argument)
print(json.dumps({"entry": recording["entry"], "storages": len(call["before"]), "args": arguments}))
)";

// A main for a Python-wrapper kernel's TU: kernel() once on the first recorded call's inputs
// (the storages dumped beside it), then what every tensor argument holds, printed (its first
// elements and a hash of its storage), so that two compilers' programs can be compared.
std::string KernelMain(const json &call, const fs::path &folder) {
  static const std::map<std::string, std::pair<std::string, std::string>> kPrinted = {
      {"float32", {"float", "%g"}},      {"float64", {"double", "%g"}},
      {"int32", {"int", "%d"}},          {"int64", {"long long", "%lld"}},
      {"bool", {"bool", "%d"}},          {"int8", {"signed char", "%d"}},
      {"uint8", {"unsigned char", "%d"}}};
  std::string text = fmt::format(
      "\n// inductor-fuzz: runs kernel() once on the first call Inductor's run recorded (its "
      "storages in\n// {}) and prints what each tensor argument holds.\n#include <cstdio>\n"
      "#include <fstream>\n#include <iterator>\n#include <vector>\n"
      "namespace inductor_fuzz_main {{\nstruct Pointer {{\n  char *p;\n  template <class T> "
      "operator T *() const {{ return reinterpret_cast<T *>(p); }}\n}};\n"
      "std::vector<char> Read(const char *path) {{\n  std::ifstream in(path, std::ios::binary);\n"
      "  return {{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()}};\n}}\n"
      "unsigned long long Hash(const std::vector<char> &bytes) {{\n"
      "  unsigned long long hash = 1469598103934665603ull;\n  for (char c : bytes)\n"
      "    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;\n  return hash;\n}}\n"
      "}} // namespace inductor_fuzz_main\nint main() {{\n  using namespace inductor_fuzz_main;\n",
      folder.string());
  for (int number = 0; number < call.value("storages", 0); ++number)
    text += fmt::format("  std::vector<char> s{} = Read(\"{}\");\n", number,
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
  text += "  kernel(" + arguments + ");\n" + prints + "  return 0;\n}\n";
  return text;
}

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
  const auto dumped = support::RunCommand({(paths.venv / "bin" / "python").string(), "-c",
                                           kDumpFirstCall, row.recording, folder.string()},
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
    fs::copy_file(paths.project_root / "fuzzer" / "worker" / "python" / "inductor_fuzz_worker" /
                      "kernels.py",
                  out_dir / "kernels.py", fs::copy_options::overwrite_existing);
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

} // namespace

int ReduceCase(const ReduceOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const CaseInput input = ReadCaseOrFinding(options.input);
  const fs::path default_out =
      input.finding_folder
          ? *input.finding_folder / "reduced"
          : fs::path(fmt::format("reduced-{}", input.c.name.empty() ? "case" : input.c.name));
  const fs::path out_dir = fs::absolute(options.out_dir.value_or(default_out));
  const fs::path python = paths.venv / "bin" / "python";
  const reducers::PassContext context{.python = python,
                                      .mask_ast_script =
                                          paths.project_root / "reducers" / "case" / "mask_ast.py"};
  support::ScratchDir scratch("reduce");
  reducers::CaseReduceOptions reduce{
      .jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency()),
      .confirm = options.confirm,
      .case_timeout = std::chrono::seconds(options.case_timeout_seconds),
      .passes = reducers::LoadCasePassOrder(
          options.passes_file.value_or(paths.project_root / "reducers" / "case" / "passes.json")),
      .signature = input.signature,
      .needs = input.needs,
      .scratch = scratch.path()};
  // A memory error is only seen sanitized; other failures may be reduced sanitized on request.
  if (!options.sanitize.empty() || IsKind(input.signature, corpus::FindingKind::kMemoryError))
    reduce.sanitizer = fuzzer::worker::ParseSanitizerOptions(
        options.sanitize.empty() ? "address,undefined" : options.sanitize,
        options.sanitize_compiler);
  const std::string prelude =
      reduce.sanitizer ? fuzzer::worker::SanitizedReproPrelude(*reduce.sanitizer) : "";
  // A crash finding reduced sanitized: what the sanitizer reports of the untouched case is the
  // signature to keep, not the stored crash's (the heap corruption it caused).
  const bool sanitizing_a_crash = reduce.sanitizer && !reduce.signature.empty() &&
                                  !IsKind(reduce.signature, corpus::FindingKind::kMemoryError);
  if (sanitizing_a_crash)
    reduce.signature.clear();
  // A matrix finding: each candidate's TUs are rebuilt on the finding's compilers, loaded and
  // replayed, as the campaign and `replay` do, and the matrix's findings are its signature.
  const bool matrix_finding = input.kind && fuzzer::campaign::IsMatrixKind(*input.kind);
  if (!options.compilers.empty() && !matrix_finding)
    throw support::InputError(
        "--compilers with a finding's folder goes with a matrix finding (compiler-divergence, "
        "load-error, runtime-divergence); for a TU use reduce --cpp FILE --compilers A,B -- "
        "COMMAND");
  std::vector<fuzzer::matrix::Compiler> matrix_compilers;
  std::optional<fuzzer::matrix::BuildCache> build_cache;
  if (matrix_finding) {
    matrix_compilers =
        fuzzer::campaign::MatrixCompilersOf(options.compilers, input.smallest, input.id);
    // The corpus's own cache: the untouched case's builds are there from the campaign.
    build_cache.emplace(input.finding_folder->parent_path().parent_path() / ".cache" / "builds");
    if (!options.compilers.empty())
      reduce.signature.clear(); // other compilers: the untouched case's divergence is kept
    const corpus::FindingKind kind = *input.kind;
    const std::chrono::seconds timeout(options.case_timeout_seconds);
    reduce.stage = [&matrix_compilers, &build_cache, kind,
                    timeout](fuzzer::worker::Worker &worker, const corpus::Case &c,
                             const fuzzer::worker::CaseOutcome &outcome, const fs::path &case_dir) {
      std::vector<corpus::Finding> findings;
      if (!fuzzer::campaign::CapturedAnyBuild(outcome))
        return findings;
      const auto run = fuzzer::campaign::RunMatrixOnCase(
          worker, c, outcome, case_dir, matrix_compilers, &*build_cache, timeout, findings);
      corpus::WriteMatrixRecord(case_dir / "matrix.json", run.record);
      std::erase_if(findings, [kind](const corpus::Finding &f) { return f.kind != kind; });
      return findings;
    };
    reduce.final_run_dir = out_dir / "reduced-run";
  }
  std::optional<support::TorchEnvironment> baseline;
  if (options.baseline_torch) {
    baseline = support::ResolveTorchEnvironment(*options.baseline_torch, paths.project_root);
    reduce.baseline_venv = baseline->venv;
  }
  fs::create_directories(out_dir);
  corpus::SaveCaseFile(out_dir / "original-case.json", input.c);
  out << fmt::format("reduce: {} with {} worker(s); best case so far in {}\n",
                     options.input.string(), reduce.jobs, (out_dir / "case.json").string());
  if (matrix_finding) {
    std::string names;
    for (const auto &compiler : matrix_compilers)
      names += (names.empty() ? "" : ",") + compiler.name;
    out << fmt::format("reduce: a {}: each candidate's TUs are rebuilt on {}, loaded and "
                       "replayed on its recorded calls (the compiler matrix)\n",
                       corpus::KindName(*input.kind), names);
    if (!options.compilers.empty())
      out << fmt::format("reduce: on --compilers, the signature kept is the untouched case's {} "
                         "on them, not the finding's {}\n",
                         corpus::KindName(*input.kind), input.signature);
  }
  if (sanitizing_a_crash)
    out << fmt::format("reduce: sanitized, so the signature kept is the sanitizer's report on the "
                       "untouched case, not the finding's {}\n",
                       input.signature);
  out.flush();

  const bool terminal = ::isatty(STDERR_FILENO);
  reducers::ReduceCallbacks callbacks{.progress =
                                          [terminal](const std::string &line) {
                                            if (terminal)
                                              std::cerr << "\r\033[K" << line.substr(0, 160)
                                                        << std::flush;
                                            else
                                              std::cerr << line << "\n";
                                          },
                                      .improved =
                                          [&](const reducers::CaseReduction &best) {
                                            auto reduced = best.reduced;
                                            reduced.provenance["reduced_from"] = input.c.name;
                                            corpus::SaveCaseFile(out_dir / "case.json", reduced);
                                          }};
  reduce_stop_requested = false;
  std::signal(SIGINT, RequestReduceStop);
  std::signal(SIGTERM, RequestReduceStop);
  const auto reduction =
      reducers::ReduceCase(input.c, reduce, context, paths, reduce_stop_requested, callbacks);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (terminal)
    std::cerr << "\n";
  callbacks.improved(reduction);

  // The script: the minimal configuration if it reproduces alone, else the complete one.
  std::string script;
  reducers::StandaloneRun standalone;
  // A regression's script says which release passes and which fails, and is run on both.
  const std::string releases_note =
      baseline
          ? fmt::format("# Regression: passes on torch {} ({}), fails as above on torch {} "
                        "({}).\n",
                        baseline->torch_version, baseline->venv.filename().string(),
                        support::InstalledTorchVersion(paths.venv), paths.venv.filename().string())
          : "";
  if (matrix_finding) {
    // The case as it runs, eager against compiled: it passes (the compilers disagree, not
    // Inductor and eager); repro.sh below shows the divergence.
    script = reducers::EmitMinimalRepro(reduction.reduced, reduction.signature,
                                        reducers::ReproConfig::kComplete, prelude);
    support::WriteFileAtomically(out_dir / "repro.py", script);
    standalone.how = "not run: the divergence is between compilers (see repro.sh)";
  }
  for (const auto config : {reducers::ReproConfig::kMinimal, reducers::ReproConfig::kComplete}) {
    if (matrix_finding)
      break;
    script = reducers::EmitMinimalRepro(reduction.reduced, reduction.signature, config, prelude);
    script.insert(script.find('\n') + 1, releases_note);
    support::WriteFileAtomically(out_dir / "repro.py", script);
    standalone = reducers::RunStandalone(out_dir / "repro.py", python, reduction.signature,
                                         reduce.case_timeout, reduction.confirm_runs);
    if (standalone.reproduces)
      break;
  }
  reducers::StandaloneRun on_baseline;
  if (baseline)
    on_baseline = reducers::RunStandalone(out_dir / "repro.py", baseline->venv / "bin" / "python",
                                          reduction.signature, reduce.case_timeout);
  json report = {{"signature", reduction.signature},
                 {"confirm_runs", reduction.confirm_runs},
                 {"reproduced", reduction.reproduced},
                 {"steps", reduction.steps},
                 {"candidates_run", reduction.tried},
                 {"invalid_runs", reduction.invalid},
                 {"seconds", reduction.seconds},
                 {"nodes_before", reduction.nodes_before},
                 {"nodes_after", reduction.nodes_after},
                 {"volume_before", reducers::CaseVolume(reduction.original)},
                 {"volume_after", reducers::CaseVolume(reduction.reduced)},
                 {"accepted_passes", reduction.accepted_passes},
                 {"interrupted", reduction.interrupted},
                 {"repro_lines", Lines(script)},
                 {"repro_reproduces", standalone.reproduces},
                 {"repro_run", standalone.how},
                 {"repro_runs", standalone.runs},
                 {"tool_version", support::ToolVersion()},
                 {"command_line", options.command_line}};
  if (reduce.sanitizer)
    report["sanitizer"] = {{"checks", reduce.sanitizer->checks},
                           {"compiler", reduce.sanitizer->compiler},
                           {"flags", fuzzer::worker::SanitizerFlags(*reduce.sanitizer)}};
  if (baseline) {
    report["baseline_torch"] = baseline->torch_version;
    report["candidate_torch"] = support::InstalledTorchVersion(paths.venv);
    report["baseline_runs"] = reduction.baseline_runs;
    report["repro_passes_on_baseline"] = !on_baseline.reproduces;
    report["repro_run_on_baseline"] = on_baseline.how;
  }
  if (matrix_finding) {
    std::string names;
    for (const auto &compiler : matrix_compilers)
      names += (names.empty() ? "" : ",") + compiler.name;
    report["matrix_compilers"] = names;
    report["repro_py"] = "the reduced case, eager against compiled (it passes: the compilers "
                         "disagree, not Inductor and eager)";
  }
  if (!matrix_finding)
    support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
  out << fmt::format("reduce: {} -> {} expression nodes, {} step(s), {} candidate(s) in {:.0f} "
                     "s{}; the untouched case failed {}/{} time(s)\n",
                     reduction.nodes_before, reduction.nodes_after, reduction.steps,
                     reduction.tried, reduction.seconds,
                     reduction.interrupted ? " (interrupted)" : "", reduction.reproduced,
                     reduction.confirm_runs);
  if (matrix_finding) {
    const int matrix_status =
        FinishMatrixReduction(options, out_dir, reduction, *input.kind, paths, report, out);
    support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
    std::error_code ignored; // the matrix's builds and precompiled prefixes: large, not needed
    fs::remove_all(out_dir / "reduced-run" / "matrix", ignored);
    return matrix_status;
  }
  out << fmt::format("reduce: {} ({} lines): {} standalone ({}; run {} time(s))\n",
                     (out_dir / "repro.py").string(), Lines(script),
                     standalone.reproduces ? "fails the same way" : "DOES NOT reproduce",
                     standalone.how, standalone.runs);
  if (baseline)
    out << fmt::format("reduce: on the baseline torch {}: {} ({})\n", baseline->torch_version,
                       on_baseline.reproduces ? "FAILS TOO" : "passes", on_baseline.how);
  int status = standalone.reproduces && !on_baseline.reproduces ? support::kExitNothingFound
                                                                : support::kExitFindings;
  if (IsSourceFailure(reduction.signature) && !reduction.interrupted) {
    out << "reduce: the failure lives in a TU: reducing its source\n";
    status =
        std::max(status, ReduceFailingSource(options, out_dir, reduction.signature, paths, out));
  }
  return status;
}

std::vector<std::string> ReduceInChildCommandLine(const std::filesystem::path &tool,
                                                  const std::filesystem::path &venv,
                                                  const std::filesystem::path &input,
                                                  const std::filesystem::path &out, unsigned jobs,
                                                  std::chrono::seconds case_timeout) {
  std::vector<std::string> argv = {tool.string(),
                                   "reduce",
                                   input.string(),
                                   "--out",
                                   out.string(),
                                   "--jobs",
                                   std::to_string(std::max(1u, jobs)),
                                   "--case-timeout",
                                   std::to_string(case_timeout.count())};
  if (!venv.empty())
    argv.insert(argv.begin() + 1, {"--venv", venv.string()});
  return argv;
}

ReduceInput CheckReduceInputs(const ReduceOptions &options) {
  const int sources =
      !!options.cpp_file + !!options.from_log + !!options.script + !!options.matrix_record;
  if (sources + !options.input.empty() != 1)
    throw support::InputError("reduce takes one input: a case file or a finding's folder, "
                              "--cpp FILE, --from-log LOG, --script SCRIPT or "
                              "--matrix-record FILE");
  if (!options.tu.empty() && !options.matrix_record)
    throw support::InputError("--tu goes with --matrix-record FILE");
  if (!options.compile_command.empty() && !options.cpp_file)
    throw support::InputError("a command after `--` goes with reduce --cpp FILE");
  if (options.interesting && !options.cpp_file)
    throw support::InputError("--interesting goes with reduce --cpp FILE");
  if (!options.compilers.empty() &&
      (options.interesting || (!options.cpp_file && options.input.empty())))
    throw support::InputError(
        "--compilers goes with reduce --cpp FILE -- COMMAND (without --interesting), or with a "
        "matrix finding's folder");
  if (options.run_programs && (options.compilers.empty() || !options.cpp_file))
    throw support::InputError("--run goes with --compilers A,B and --cpp FILE: the compilers whose "
                              "programs print differently");
  return sources ? ReduceInput::kSource : ReduceInput::kCase;
}

} // namespace workflows
