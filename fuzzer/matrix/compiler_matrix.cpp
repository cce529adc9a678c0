#include "fuzzer/matrix/compiler_matrix.h"

#include "corpus/run_record.h"

#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/kernel_probes.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/matrix/warnings.h"
#include "fuzzer/worker/worker_client.h"
#include "parsers/clang_analysis.h"
#include "parsers/diagnostics.h"
#include "parsers/precompiled_prefix.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/sha256.h"
#include "support/text_file.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <dlfcn.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fuzzer::matrix {
namespace {

using nlohmann::json;

// Runs work(0..count-1) on `jobs` threads.
void RunInParallel(std::size_t count, unsigned jobs, const std::function<void(std::size_t)> &work) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::max(1u, jobs); ++i)
    threads.emplace_back([&] {
      for (std::size_t item; (item = next++) < count;)
        work(item);
    });
  for (auto &thread : threads)
    thread.join();
}

std::string FileSafeName(std::string text) {
  for (char &ch : text)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-')
      ch = '_';
  return text;
}

// Where every compiler of one matrix writes its intermediate .s and .o files (TMPDIR): tmpfs
// when there is one. A temporary file on disk costs about 0.1 s per build on a virtual disk,
// and what is built does not change.
class CompilerTemporaries {
public:
  explicit CompilerTemporaries(const std::filesystem::path &fallback) {
    const bool shm = ::access("/dev/shm", W_OK) == 0;
    std::string pattern =
        ((shm ? std::filesystem::path("/dev/shm") : fallback) / "inductor-fuzz-cc-XXXXXX").string();
    std::filesystem::create_directories(std::filesystem::path(pattern).parent_path());
    if (::mkdtemp(pattern.data()))
      folder_ = pattern;
  }
  ~CompilerTemporaries() {
    std::error_code ignored;
    if (!folder_.empty())
      std::filesystem::remove_all(folder_, ignored);
  }
  CompilerTemporaries(const CompilerTemporaries &) = delete;
  CompilerTemporaries &operator=(const CompilerTemporaries &) = delete;

  support::SpawnOptions Spawn(const std::filesystem::path &working_directory,
                              std::size_t memory_limit_bytes) const {
    support::SpawnOptions spawn{.working_directory = working_directory,
                                .memory_limit_bytes = memory_limit_bytes};
    if (!folder_.empty())
      spawn.environment["TMPDIR"] = folder_.string();
    return spawn;
  }

private:
  std::filesystem::path folder_;
};

// A precompiled prefix: the leading #includes of TUs, built once per compiler and flag set.
struct Prefix {
  std::filesystem::path header;
  std::filesystem::path precompiled; // header.gch (gcc, found next to the header) or .pch
  bool built = false;
};

std::string ReadWholeFile(const std::filesystem::path &path) {
  std::ifstream stream(path);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

// The key of the prefix a TU can share: the compiler, its adapted flags and the include block.
std::string PrefixKey(const CapturedTu &tu, const Compiler &compiler, const OpenMpInstall &openmp,
                      const std::string &block) {
  const auto argv = CommandForCompiler(tu.argv, compiler, "SOURCE", "OUTPUT", openmp);
  return fmt::format("{}\n{}\n{}\n{}", compiler.path.string(), compiler.version,
                     fmt::join(argv, " "), block);
}

// Clang instantiates the header's templates once, in the prefix: a third of what remains of a
// kernel's build.
bool MakePrefix(const CapturedTu &tu, const Compiler &compiler, const MatrixOptions &options,
                const OpenMpInstall &openmp, const parsers::PrecompiledPrefix &paths,
                const std::filesystem::path &dependencies, const CompilerTemporaries &temporaries) {
  auto argv = parsers::PrecompileCommand(
      CommandForCompiler(tu.argv, compiler, paths.header, paths.precompiled, openmp), paths,
      compiler.family, /*instantiate_templates=*/true);
  if (!dependencies.empty())
    argv.insert(argv.end(), {"-MD", "-MF", dependencies.string()});
  const support::SpawnOptions spawn =
      temporaries.Spawn(paths.header.parent_path(), options.memory_limit_bytes);
  const auto result = support::RunCommand(argv, spawn, options.timeout);
  return result.status.Succeeded() && std::filesystem::exists(paths.precompiled);
}

Prefix BuildPrefix(const CapturedTu &tu, const Compiler &compiler, const MatrixOptions &options,
                   const OpenMpInstall &openmp, const std::string &key, const std::string &block,
                   std::size_t index, const CompilerTemporaries &temporaries) {
  if (options.prefix_cache) {
    const auto kept = options.prefix_cache->Get(
        support::Sha256Hex("matrix-prefix:1\n" + key).substr(0, 32), block, compiler.family,
        [&](const parsers::PrecompiledPrefix &paths, const std::filesystem::path &dependencies) {
          return MakePrefix(tu, compiler, options, openmp, paths, dependencies, temporaries);
        });
    if (!kept)
      return {};
    return {.header = kept->header, .precompiled = kept->precompiled, .built = true};
  }
  const auto folder = options.work_dir / "prefixes" / FileSafeName(compiler.name);
  std::filesystem::create_directories(folder);
  const auto paths =
      parsers::PrefixBeside(folder / fmt::format("prefix-{}.h", index), compiler.family);
  std::ofstream(paths.header) << block;
  return {.header = paths.header,
          .precompiled = paths.precompiled,
          .built = MakePrefix(tu, compiler, options, openmp, paths, {}, temporaries)};
}

std::filesystem::path OutputOf(const CapturedTu &tu, const Compiler &compiler,
                               const MatrixOptions &options, std::size_t index) {
  return options.work_dir / FileSafeName(compiler.name) /
         fmt::format("{:04}-{}.so", index, FileSafeName(tu.source.stem().string()));
}

TuBuild Build(const CapturedTu &tu, const Compiler &compiler, const MatrixOptions &options,
              const OpenMpInstall &openmp, std::size_t index, const Prefix *prefix,
              const CompilerTemporaries &temporaries) {
  TuBuild build{.compiler = compiler.name, .sanitized = !compiler.sanitizers.empty()};
  build.output = OutputOf(tu, compiler, options, index);
  const auto folder = build.output.parent_path();
  std::filesystem::create_directories(folder);
  const auto exact = CommandForCompiler(tu.argv, compiler, tu.source, build.output, openmp);
  build.argv = exact;
  if (prefix && prefix->built) {
    const auto source = std::find(build.argv.begin(), build.argv.end(), tu.source.string());
    if (compiler.family == CompilerFamily::kGcc)
      build.argv.insert(source, {"-include", prefix->header.string(), "-Winvalid-pch"});
    else
      build.argv.insert(source, {"-include-pch", prefix->precompiled.string()});
    build.used_prefix = true;
  }
  const support::SpawnOptions spawn = temporaries.Spawn(folder, options.memory_limit_bytes);
  auto result = support::RunCommand(build.argv, spawn, options.timeout);
  if (build.used_prefix && !result.status.Succeeded() && !result.timed_out) {
    // A failure is recorded as the exact command's, so that a compile error is never the
    // prefix's (one removed by a trim, one a compiler refuses).
    build.argv = exact;
    build.used_prefix = false;
    result = support::RunCommand(build.argv, spawn, options.timeout);
  }
  build.seconds = result.seconds;
  build.timed_out = result.timed_out;
  build.exit = result.timed_out ? "timed out" : result.status.Describe();
  build.compiler_crashed = result.status.signal.has_value() && !result.timed_out;
  build.built =
      result.status.Succeeded() && !result.timed_out && std::filesystem::exists(build.output);
  if (build.built)
    build.object_size = std::filesystem::file_size(build.output);
  const auto family = compiler.family;
  const auto diagnostics = parsers::ParseCompilerText(result.output, family);
  build.warnings = WarningKeys(diagnostics, tu.source);
  for (const auto &diagnostic : diagnostics) {
    if (diagnostic.severity == "error" || diagnostic.severity == "fatal error") {
      if (build.first_error.empty())
        build.first_error = diagnostic.message;
      ++build.errors;
    }
  }
  if (!build.built) {
    build.signature = corpus::Signature(parsers::CompileErrorFinding(family, diagnostics));
    if (build.first_error.empty()) // a crash or a link error prints no file:line diagnostic
      build.first_error = result.output.substr(0, result.output.find('\n'));
  }
  return build;
}

// The probed twin of every built cpp_wrapper TU with recorded calls, on every compiler that
// built the TU itself, sharing its prefix.
void BuildProbes(std::vector<TuMatrix> &matrix, const MatrixOptions &options,
                 const OpenMpInstall &openmp, const std::vector<std::string> &prefix_keys,
                 const std::map<std::string, Prefix> &prefixes,
                 const CompilerTemporaries &temporaries, const Progress &progress) {
  const std::size_t columns = options.compilers.size();
  std::vector<std::optional<CapturedTu>> probed_tus(matrix.size());
  std::vector<std::size_t> tasks;
  for (std::size_t row = 0; row < matrix.size(); ++row) {
    const CapturedTu &tu = matrix[row].tu;
    if (tu.entry != kWrapperEntry || tu.recording.empty())
      continue;
    const auto probed = ProbeKernelCalls(ReadWholeFile(tu.source));
    if (!probed)
      continue;
    const auto folder = options.work_dir / "probes";
    std::filesystem::create_directories(folder);
    CapturedTu copy = tu;
    copy.source = folder / fmt::format("{:04}-{}.probed.cpp", row, FileSafeName(tu.source.stem()));
    std::ofstream(copy.source) << probed->text;
    probed_tus[row] = std::move(copy);
    for (std::size_t column = 0; column < columns; ++column)
      if (matrix[row].builds[column].built && options.compilers[column].sanitizers.empty())
        tasks.push_back(row * columns + column);
  }
  std::mutex report;
  RunInParallel(tasks.size(), options.jobs, [&](std::size_t i) {
    const std::size_t row = tasks[i] / columns, column = tasks[i] % columns;
    const auto found = prefixes.find(prefix_keys[tasks[i]]);
    const TuBuild probe = Build(*probed_tus[row], options.compilers[column], options, openmp, row,
                                found == prefixes.end() ? nullptr : &found->second, temporaries);
    const std::lock_guard lock(report);
    TuBuild &build = matrix[row].builds[column];
    if (probe.built)
      build.probe_module = probe.output;
    else
      build.probe_error = probe.first_error.empty() ? probe.exit : probe.first_error;
    if (progress)
      progress(fmt::format("probes {}/{}: {} on {}: {}", i + 1, tasks.size(), matrix[row].tu.label,
                           build.compiler,
                           probe.built ? fmt::format("built ({:.1f} s)", probe.seconds)
                                       : "not built: " + build.probe_error));
  });
}

} // namespace

std::vector<CapturedTu> LoadCapturedTus(const std::vector<std::filesystem::path> &roots) {
  std::vector<CapturedTu> tus;
  for (const auto &folder : corpus::FindRunRecords(roots))
    for (const auto &command : corpus::ReadCommandsFile(folder / "commands.json")) {
      if (!command.unavailable.empty())
        throw support::InputError(command.unavailable + "; install them, then run again");
      for (const auto &source : command.sources) {
        CapturedTu tu{.label = folder.filename().string() + "/" +
                               source.stored.lexically_relative(folder).string(),
                      .source = source.stored,
                      .argv = command.argv};
        if (!command.recording.empty()) {
          tu.recording = command.recording;
          tu.entry = command.entry;
          tu.reference_module = command.Output();
        }
        tus.push_back(std::move(tu));
      }
    }
  return tus;
}

std::vector<TuMatrix> BuildMatrix(const std::vector<CapturedTu> &tus, const MatrixOptions &options,
                                  const Progress &progress) {
  const auto openmp = FindOpenMp();
  const CompilerTemporaries temporaries(options.work_dir);
  std::vector<TuMatrix> matrix;
  for (const auto &tu : tus)
    matrix.push_back({tu, std::vector<TuBuild>(options.compilers.size())});
  const std::size_t columns = options.compilers.size();
  const std::size_t total = tus.size() * columns;
  std::mutex report;
  std::atomic<std::size_t> done{0};

  // What the build cache has is not built again.
  std::vector<std::string> cache_keys(total);
  std::vector<bool> to_build(total, true);
  if (options.cache)
    for (std::size_t task = 0; task < total; ++task) {
      const std::size_t row = task / columns, column = task % columns;
      const auto &compiler = options.compilers[column];
      cache_keys[task] = BuildCache::Key(tus[row], compiler, openmp);
      auto cached =
          options.cache->Find(cache_keys[task], OutputOf(tus[row], compiler, options, row));
      if (!cached)
        continue;
      cached->compiler = compiler.name;
      cached->sanitized = !compiler.sanitizers.empty();
      cached->argv =
          CommandForCompiler(tus[row].argv, compiler, tus[row].source, cached->output, openmp);
      if (progress)
        progress(fmt::format("[{}/{}] {} on {}: {} (cached)", ++done, total, tus[row].label,
                             compiler.name, cached->built ? "built" : cached->exit));
      matrix[row].builds[column] = std::move(*cached);
      to_build[task] = false;
    }

  // First the shared prefixes, one per (compiler, flags, include block), in parallel. nvcc
  // precompiles no header: its TUs parse their includes themselves.
  std::vector<std::string> keys(total);
  std::map<std::string, std::size_t> first_task_of_key;
  std::map<std::string, std::string> block_of_key;
  if (options.shared_prefix)
    for (std::size_t task = 0; task < total; ++task) {
      if (!to_build[task] || options.compilers[task % columns].family == CompilerFamily::kNvcc)
        continue;
      const auto &tu = tus[task / columns];
      const std::string source = ReadWholeFile(tu.source);
      std::string block = parsers::HoistableDirectives(source);
      if (block.empty())
        block = parsers::LeadingIncludeBlock(source);
      if (block.empty())
        continue;
      keys[task] = PrefixKey(tu, options.compilers[task % columns], openmp, block);
      first_task_of_key.try_emplace(keys[task], task);
      block_of_key[keys[task]] = block;
    }
  std::vector<std::string> unique_keys;
  for (const auto &[key, task] : first_task_of_key)
    unique_keys.push_back(key);
  std::map<std::string, Prefix> prefixes;
  RunInParallel(unique_keys.size(), options.jobs, [&](std::size_t i) {
    const std::size_t task = first_task_of_key[unique_keys[i]];
    auto prefix = BuildPrefix(tus[task / columns], options.compilers[task % columns], options,
                              openmp, unique_keys[i], block_of_key[unique_keys[i]], i, temporaries);
    const std::lock_guard lock(report);
    if (progress)
      progress(fmt::format("prefix {}/{} for {}: {}", i + 1, unique_keys.size(),
                           options.compilers[task % columns].name,
                           prefix.built ? "built" : "failed, TUs parse it themselves"));
    prefixes[unique_keys[i]] = std::move(prefix);
  });

  RunInParallel(total, options.jobs, [&](std::size_t task) {
    if (!to_build[task])
      return;
    {
      const std::size_t row = task / columns;
      const std::size_t column = task % columns;
      const auto found = prefixes.find(keys[task]);
      auto build = Build(tus[row], options.compilers[column], options, openmp, row,
                         found == prefixes.end() ? nullptr : &found->second, temporaries);
      if (options.cache)
        options.cache->Store(cache_keys[task], build);
      const std::lock_guard lock(report);
      if (progress)
        progress(fmt::format("[{}/{}] {} on {}: {} ({:.1f} s)", ++done, total, tus[row].label,
                             build.compiler, build.built ? "built" : build.exit, build.seconds));
      matrix[row].builds[column] = std::move(build);
    }
  });
  if (options.kernel_probes)
    BuildProbes(matrix, options, openmp, keys, prefixes, temporaries, progress);
  return matrix;
}

std::string TextSection(const std::filesystem::path &module) {
  const auto text = std::filesystem::path(module.string() + ".text");
  const auto result = support::RunCommand(
      {"objcopy", "-O", "binary", "--only-section=.text", module.string(), text.string()}, {},
      std::chrono::seconds(60));
  std::string bytes;
  if (result.status.Succeeded())
    bytes = ReadWholeFile(text);
  std::error_code ignored;
  std::filesystem::remove(text, ignored);
  return bytes;
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

void CheckLoads(std::vector<TuMatrix> &matrix, worker::Worker &worker) {
  static const std::regex undefined(R"(undefined symbol: (\S+))");
  const auto info = worker.Request({{"op", "info"}}, std::chrono::minutes(2));
  const int torch_abi = info.status == worker::ReplyStatus::kOk
                            ? info.message["info"].value("glibcxx_use_cxx11_abi", true)
                            : 1;
  void *driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  const bool cuda_driver = driver != nullptr;
  if (driver)
    ::dlclose(driver);
  for (auto &row : matrix)
    for (auto &build : row.builds) {
      // A sanitized module needs its runtime loaded first: its replay is its load check.
      if (!build.built || build.sanitized)
        continue;
      // An object file (AOTInductor compiles its wrapper and kernel TUs with -c, then links
      // them with its constants): there is no module to load.
      if (std::find(build.argv.begin(), build.argv.end(), "-c") != build.argv.end())
        continue;
      // A CUDA module links the driver (-lcuda): on a machine without one it is only built.
      if (!cuda_driver &&
          std::find(build.argv.begin(), build.argv.end(), "-lcuda") != build.argv.end())
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
      if (reply.status != worker::ReplyStatus::kOk) {
        build.load_error = "loading crashed the worker: " + reply.detail;
        continue;
      }
      std::string error = reply.message.value("load_error", "");
      std::smatch match;
      if (std::regex_search(error, match, undefined))
        error = "undefined symbol: " + support::Demangle(match[1]);
      build.load_error = error;
    }
}

std::optional<corpus::Finding> DivergenceFinding(const TuMatrix &row) {
  std::vector<std::string> built, failed, crashed;
  for (const auto &build : row.builds) {
    if (build.sanitized)
      continue; // what the sanitizers add is not a compiler's divergence
    if (build.compiler_crashed)
      crashed.push_back(build.compiler);
    (build.built ? built : failed).push_back(build.compiler);
  }
  if ((built.empty() || failed.empty()) && crashed.empty())
    return std::nullopt;
  corpus::Finding finding;
  finding.kind = corpus::FindingKind::kCompilerDivergence;
  finding.essence.Add("built", corpus::FactValue::List(built))
      .Add("failed", corpus::FactValue::List(failed))
      .Add("crashed", corpus::FactValue::List(crashed));
  for (const auto &build : row.builds)
    if (!build.built && !build.sanitized)
      finding.essence.Add("error", build.first_error);
  finding.summary = fmt::format("{} builds with {}, fails with {}", row.tu.label,
                                fmt::join(built, ", "), fmt::join(failed, ", "));
  finding.compilers = failed;
  finding.subject = row.tu.label;
  finding.detail = {
      {"tu", row.tu.label}, {"built_by", built}, {"failed_on", failed}, {"crashed", crashed}};
  return finding;
}

std::vector<corpus::Finding> LoadErrorFindings(const TuMatrix &row) {
  static const std::regex undefined(R"(undefined symbol: (.+))");
  std::vector<corpus::Finding> findings;
  for (const auto &build : row.builds) {
    if (build.load_error.empty())
      continue;
    corpus::Finding finding;
    finding.kind = corpus::FindingKind::kLoadError;
    std::smatch match;
    const std::string what = build.load_error.starts_with("ABI mismatch") ? "abi-mismatch"
                             : std::regex_search(build.load_error, match, undefined)
                                 ? "undefined symbol: " + std::string(match[1])
                                 : build.load_error;
    finding.essence.Add("compiler", build.compiler).Add("symbol", what);
    finding.summary = fmt::format("{} built by {} does not load: {}", row.tu.label, build.compiler,
                                  build.load_error);
    finding.message = build.load_error;
    finding.compilers = {build.compiler};
    finding.subject = row.tu.label;
    finding.detail = {{"tu", row.tu.label}, {"compiler", build.compiler}};
    findings.push_back(std::move(finding));
  }
  return findings;
}

} // namespace fuzzer::matrix
