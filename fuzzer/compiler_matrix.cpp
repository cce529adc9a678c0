#include "fuzzer/compiler_matrix.h"

#include "fuzzer/child_process.h"
#include "fuzzer/worker_client.h"
#include "parsers/diagnostics.h"

#include <cxxabi.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

namespace fuzzer {
namespace {

using nlohmann::json;

parsers::CompilerFamily ParserFamily(CompilerFamily family) {
  return family == CompilerFamily::kClang ? parsers::CompilerFamily::kClang
                                          : parsers::CompilerFamily::kGcc;
}

std::string SafeName(std::string text) {
  for (char &ch : text)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-')
      ch = '_';
  return text;
}

TuBuild Build(const CapturedTu &tu, const Compiler &compiler, const MatrixOptions &options,
              const OpenMpInstall &openmp, std::size_t index) {
  TuBuild build{.compiler = compiler.name};
  const auto folder = options.work_dir / SafeName(compiler.name);
  std::filesystem::create_directories(folder);
  build.output = folder / fmt::format("{:04}-{}.so", index, SafeName(tu.source.stem().string()));
  build.argv = CommandForCompiler(tu.argv, compiler, tu.source, build.output, openmp);
  SpawnOptions spawn{.working_directory = folder, .memory_limit_bytes = options.memory_limit_bytes};
  const auto result = RunCommand(build.argv, spawn, options.timeout);
  build.seconds = result.seconds;
  build.timed_out = result.timed_out;
  build.exit = result.timed_out ? "timed out" : result.status.Describe();
  build.compiler_crashed = result.status.signal.has_value() && !result.timed_out;
  build.built =
      result.status.Succeeded() && !result.timed_out && std::filesystem::exists(build.output);
  if (build.built)
    build.object_size = std::filesystem::file_size(build.output);
  const auto family = ParserFamily(compiler.family);
  const auto diagnostics = parsers::ParseCompilerText(result.output, family);
  for (const auto &diagnostic : diagnostics) {
    // Warnings in torch's headers are the same for every kernel: only the generated code's
    // own warnings say something about this TU.
    if (diagnostic.severity == "warning" && diagnostic.location.file == tu.source.string())
      build.warnings.push_back(diagnostic.message_template + " " + diagnostic.option);
    else if (diagnostic.severity == "error" || diagnostic.severity == "fatal error") {
      if (build.first_error.empty())
        build.first_error = diagnostic.message;
      ++build.errors;
    }
  }
  if (!build.built) {
    build.signature = parsers::CompileErrorSignature(family, diagnostics);
    if (build.first_error.empty()) // a crash or a link error prints no file:line diagnostic
      build.first_error = result.output.substr(0, result.output.find('\n'));
  }
  return build;
}

} // namespace

std::vector<CapturedTu> LoadCapturedTus(const std::vector<std::filesystem::path> &roots) {
  std::vector<std::filesystem::path> folders;
  for (const auto &root : roots) {
    if (std::filesystem::exists(root / "commands.json"))
      folders.push_back(root);
    else if (std::filesystem::is_directory(root))
      for (const auto &entry : std::filesystem::recursive_directory_iterator(root))
        if (entry.path().filename() == "commands.json")
          folders.push_back(entry.path().parent_path());
  }
  std::sort(folders.begin(), folders.end());
  std::vector<CapturedTu> tus;
  for (const auto &folder : folders) {
    const auto commands = json::parse(std::ifstream(folder / "commands.json"), nullptr, false);
    if (!commands.is_array())
      continue;
    for (const auto &command : commands)
      for (const auto &source : command.value("sources", json::array()))
        tus.push_back({folder.filename().string() + "/" + source.value("stored", ""),
                       std::filesystem::absolute(folder / source.value("stored", "")),
                       command.value("argv", std::vector<std::string>{})});
  }
  return tus;
}

std::vector<TuMatrix> BuildMatrix(const std::vector<CapturedTu> &tus, const MatrixOptions &options,
                                  const Progress &progress) {
  const auto openmp = FindOpenMp();
  std::vector<TuMatrix> matrix;
  for (const auto &tu : tus)
    matrix.push_back({tu, std::vector<TuBuild>(options.compilers.size())});
  const std::size_t total = tus.size() * options.compilers.size();
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex report;
  auto work = [&] {
    for (std::size_t task; (task = next++) < total;) {
      const std::size_t row = task / options.compilers.size();
      const std::size_t column = task % options.compilers.size();
      auto build = Build(tus[row], options.compilers[column], options, openmp, row);
      const std::lock_guard lock(report);
      if (progress)
        progress(fmt::format("[{}/{}] {} on {}: {} ({:.1f} s)", ++done, total, tus[row].label,
                             build.compiler, build.built ? "built" : build.exit, build.seconds));
      matrix[row].builds[column] = std::move(build);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::max(1u, options.jobs); ++i)
    threads.emplace_back(work);
  for (auto &thread : threads)
    thread.join();
  return matrix;
}

std::string Demangle(const std::string &symbol) {
  int status = 0;
  char *demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !demangled)
    return symbol;
  std::string result = demangled;
  std::free(demangled);
  return result;
}

int CxxAbiOf(const std::vector<std::string> &argv) {
  static const std::regex define(R"((?:-D)?_GLIBCXX_USE_CXX11_ABI=(\d))");
  int abi = 1;
  std::smatch match;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const bool separate = argv[i - 1] == "-D";
    if ((separate || argv[i].starts_with("-D")) && std::regex_match(argv[i], match, define))
      abi = std::stoi(match[1]);
  }
  return abi;
}

void CheckLoads(std::vector<TuMatrix> &matrix, Worker &worker) {
  static const std::regex undefined(R"(undefined symbol: (\S+))");
  const auto info = worker.Request({{"op", "info"}}, std::chrono::minutes(2));
  const int torch_abi = info.status == ReplyStatus::kOk
                            ? info.message["info"].value("glibcxx_use_cxx11_abi", true)
                            : 1;
  for (auto &row : matrix)
    for (auto &build : row.builds) {
      if (!build.built)
        continue;
      if (const int abi = CxxAbiOf(build.argv); abi != torch_abi) {
        build.load_error = fmt::format(
            "ABI mismatch: built with _GLIBCXX_USE_CXX11_ABI={} but torch uses {}; std::string "
            "and std::list in its signatures name different types, so calls into libtorch "
            "would not resolve or would corrupt memory. Not loaded.",
            abi, torch_abi);
        continue;
      }
      const auto reply = worker.Request({{"op", "load"}, {"path", build.output.string()}},
                                        std::chrono::minutes(2));
      if (reply.status != ReplyStatus::kOk) {
        build.load_error = "loading crashed the worker: " + reply.detail;
        continue;
      }
      std::string error = reply.message.value("load_error", "");
      std::smatch match;
      if (std::regex_search(error, match, undefined))
        error = "undefined symbol: " + Demangle(match[1]);
      build.load_error = error;
    }
}

std::optional<json> DivergenceFinding(const TuMatrix &row) {
  std::vector<std::string> built, failed, crashed;
  for (const auto &build : row.builds) {
    if (build.compiler_crashed)
      crashed.push_back(build.compiler);
    (build.built ? built : failed).push_back(build.compiler);
  }
  if ((built.empty() || failed.empty()) && crashed.empty())
    return std::nullopt;
  std::set<std::string> signatures;
  for (const auto &build : row.builds)
    if (!build.built)
      signatures.insert(build.signature);
  return json{
      {"kind", "compiler-divergence"},
      {"tu", row.tu.label},
      {"built_by", built},
      {"failed_on", failed},
      {"crashed", crashed},
      {"signature", fmt::format("compiler-divergence|built:{}|failed:{}|{}", fmt::join(built, ","),
                                fmt::join(failed, ","), fmt::join(signatures, ";"))}};
}

json MatrixToJson(const std::vector<TuMatrix> &matrix) {
  json rows = json::array();
  for (const auto &row : matrix) {
    json builds = json::array();
    for (const auto &build : row.builds)
      builds.push_back({{"compiler", build.compiler},
                        {"argv", build.argv},
                        {"built", build.built},
                        {"exit", build.exit},
                        {"timed_out", build.timed_out},
                        {"compiler_crashed", build.compiler_crashed},
                        {"seconds", build.seconds},
                        {"object_size", build.object_size},
                        {"errors", build.errors},
                        {"warnings", build.warnings},
                        {"first_error", build.first_error},
                        {"signature", build.signature},
                        {"load_error", build.load_error}});
    json entry = {{"tu", row.tu.label}, {"source", row.tu.source.string()}, {"builds", builds}};
    if (auto finding = DivergenceFinding(row))
      entry["finding"] = *finding;
    rows.push_back(entry);
  }
  return rows;
}

} // namespace fuzzer
