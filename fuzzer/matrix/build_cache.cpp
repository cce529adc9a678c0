#include "fuzzer/matrix/build_cache.h"

#include "corpus/matrix_record.h"
#include "fuzzer/matrix/records.h"
#include "support/sha256.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <sstream>

#include <unistd.h>

namespace fuzzer::matrix {

namespace fs = std::filesystem;

namespace {
std::string FileBytes(const fs::path &path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << stream.rdbuf();
  return bytes.str();
}
} // namespace

BuildCache::BuildCache(fs::path folder) : folder_(std::move(folder)) {}

std::string BuildCache::Key(const CapturedTu &tu, const Compiler &compiler,
                            const OpenMpInstall &openmp) {
  const auto argv = CommandForCompiler(tu.argv, compiler, "SOURCE", "OUTPUT", openmp);
  // The salt changes with what a stored build means: its warnings are identities since 2.
  return support::Sha256Hex(fmt::format("warnings:2\n{}\n{}\n{}\n{}", compiler.path.string(),
                                        compiler.version, fmt::join(argv, "\n"),
                                        FileBytes(tu.source)));
}

std::optional<TuBuild> BuildCache::Find(const std::string &key, const fs::path &output) {
  const fs::path entry = folder_ / key;
  try {
    if (!fs::exists(entry / "build.json")) {
      ++misses_;
      return std::nullopt;
    }
    const corpus::BuildRecord record = corpus::ReadCachedBuild(entry / "build.json");
    TuBuild build{.compiler = record.compiler,
                  .argv = record.argv,
                  .built = record.built,
                  .timed_out = record.timed_out,
                  .compiler_crashed = record.compiler_crashed,
                  .exit = record.exit,
                  .seconds = record.seconds,
                  .object_size = record.object_size,
                  .errors = record.errors,
                  .warnings = record.warnings,
                  .signature = record.signature,
                  .first_error = record.first_error,
                  .output = output,
                  .from_cache = true};
    if (build.built) {
      fs::create_directories(output.parent_path());
      fs::copy_file(entry / "module.so", output, fs::copy_options::overwrite_existing);
    }
    ++hits_;
    return build;
  } catch (const std::exception &) {
    ++misses_;
    return std::nullopt;
  }
}

void BuildCache::Store(const std::string &key, const TuBuild &build) {
  if (build.timed_out)
    return;
  const fs::path entry = folder_ / key;
  std::error_code error;
  if (fs::exists(entry / "build.json", error))
    return;
  const fs::path staging = folder_ / fmt::format(".staging-{}-{}", key, ::getpid());
  try {
    fs::remove_all(staging, error);
    fs::create_directories(staging);
    if (build.built)
      fs::copy_file(build.output, staging / "module.so");
    corpus::BuildRecord record = ToBuildRecord(build);
    record.argv.clear(); // the cache key has the command; each hit gets its own
    record.load_error.clear();
    record.runtime.clear();
    record.runtime_detail = nlohmann::json::object();
    corpus::WriteCachedBuild(staging / "build.json", record);
    fs::rename(staging, entry); // fails when another writer got there first: theirs is as good
  } catch (const std::exception &) {
  }
  fs::remove_all(staging, error);
}

} // namespace fuzzer::matrix
