#pragma once

#include "corpus/finding.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// The results of `matrix --json` and `compare --report`: one writer and one validating reader
// each, versioned like every other stored format.
inline constexpr int kMatrixRecordFormatVersion = 1;
inline constexpr int kCompareRecordFormatVersion = 2; // 2: new and known warnings

// One captured TU built by one compiler, as stored.
struct BuildRecord {
  std::string compiler;
  std::vector<std::string> argv;
  bool built = false;
  std::string exit;
  bool timed_out = false;
  bool compiler_crashed = false;
  double seconds = 0;
  std::uintmax_t object_size = 0;
  int errors = 0;
  std::vector<std::string> warnings; // identities: "OPTION in FUNCTION-SHAPE"
  std::string first_error;
  std::string signature; // of the build failure
  std::string load_error;
  std::string runtime; // "same", "differs", "crashed", "timeout", "error" or "" (not replayed)
  nlohmann::json runtime_detail;
  bool operator==(const BuildRecord &) const = default;
};

struct MatrixRow {
  std::string tu;
  std::string source;
  std::string recording;
  std::string reference_runtime;
  std::vector<BuildRecord> builds;
  std::optional<Finding> divergence;      // compiler-divergence
  std::optional<Finding> runtime_finding; // runtime-divergence
  std::vector<Finding> load_findings;     // load-error, one per build that did not load
  std::vector<Finding> memory_errors;     // memory-error, one per sanitized build stopped
  std::vector<Finding> Findings() const;
  bool operator==(const MatrixRow &) const = default;
};

struct MatrixRecord {
  nlohmann::json provenance = nlohmann::json::object();
  std::vector<MatrixRow> rows;
  bool operator==(const MatrixRecord &) const = default;
};

// One build kept by a campaign's build cache (`fuzz --matrix-every`): the record of the build,
// whose module, when built, is stored beside it. Versioned like the matrix record.
inline constexpr int kCachedBuildFormatVersion = 1;
void WriteCachedBuild(const std::filesystem::path &path, const BuildRecord &build);
BuildRecord ReadCachedBuild(const std::filesystem::path &path);

nlohmann::json MatrixRecordToJson(const MatrixRecord &record);
// Throws FormatError naming the field, and refuses other format versions.
MatrixRecord MatrixRecordFromJson(const nlohmann::json &json);
void WriteMatrixRecord(const std::filesystem::path &path, const MatrixRecord &record);
MatrixRecord ReadMatrixRecord(const std::filesystem::path &path);

// How one TU fares on a candidate compiler against a baseline.
enum class CompareVerdict {
  kSame,
  kNewWarnings,
  kFixed,
  kBothFail,
  kRegression,
  kLoadRegression,
  kRuntimeDiffers,
  // The builds' results differ, but the candidate is no further from the case's float64
  // reference than the baseline by more than the case's tolerance: rounding, not a regression.
  kRounding,
};
std::string_view VerdictName(CompareVerdict verdict);
std::optional<CompareVerdict> VerdictFromName(std::string_view name);
// The verdicts `compare` exits 1 on.
bool IsRegression(CompareVerdict verdict);

struct CompilerIdentity {
  std::string name;
  std::string version;
  bool operator==(const CompilerIdentity &) const = default;
};

// One side of a comparison: the build in brief.
struct CompareSide {
  bool built = false;
  double seconds = 0;
  std::uintmax_t object_size = 0;
  std::string first_error;
  std::size_t warnings = 0;
  // The candidate's warnings the baseline does not emit on this TU: those the known-warnings
  // file explains, and the rest, which make the verdict new-warnings. Empty on the baseline.
  std::vector<std::string> new_warnings;
  std::vector<std::string> known_warnings;
  std::string load_error;
  std::string runtime;
  // Where the TU computes a case's output and the case kept its float64 reference: this build's
  // largest error against it ("build_error"), the recording's, eager's and the case's limit;
  // null where no reference can be made (no case, no float output, no recording).
  nlohmann::json float64_reference;
  bool operator==(const CompareSide &) const = default;
};

struct CompareRow {
  std::string tu;
  CompareVerdict verdict = CompareVerdict::kSame;
  CompareSide baseline;
  CompareSide candidate;
  std::string reference_runtime;
  std::optional<Finding> runtime_finding;
  // Where the two builds' results differ: each floating-point pin tried and which one makes
  // them agree (fuzzer/matrix/fp_pinning.h); null when not tried.
  nlohmann::json fp_pinning;
  double CompileSecondsDelta() const { return candidate.seconds - baseline.seconds; }
  long long ObjectSizeDelta() const {
    return static_cast<long long>(candidate.object_size) -
           static_cast<long long>(baseline.object_size);
  }
  bool operator==(const CompareRow &) const = default;
};

struct CompareRecord {
  nlohmann::json provenance = nlohmann::json::object();
  CompilerIdentity baseline;
  CompilerIdentity candidate;
  std::vector<CompareRow> rows;
  std::map<std::string, int> Counts() const; // by verdict name
  int Regressions() const;
  bool operator==(const CompareRecord &) const = default;
};

nlohmann::json CompareRecordToJson(const CompareRecord &record);
CompareRecord CompareRecordFromJson(const nlohmann::json &json);
void WriteCompareRecord(const std::filesystem::path &path, const CompareRecord &record);
CompareRecord ReadCompareRecord(const std::filesystem::path &path);

} // namespace corpus
