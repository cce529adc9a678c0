#include "fuzzer/matrix/records.h"

#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/matrix/sanitizer_column.h"

#include <cmath>
#include <set>
#include <string>

namespace fuzzer::matrix {
namespace {

corpus::CompareSide ToSide(const TuBuild &build) {
  return {.built = build.built,
          .seconds = build.seconds,
          .object_size = build.object_size,
          .first_error = build.first_error,
          .warnings = build.warnings.size(),
          .load_error = build.load_error,
          .runtime = build.runtime,
          .float64_reference =
              build.runtime_detail.is_object()
                  ? build.runtime_detail.value("float64_reference", nlohmann::json())
                  : nlohmann::json()};
}

// Two builds whose results differ, judged against the case's float64 reference: the candidate
// is a regression only when it is further from it than the baseline by more than the case's
// limit (the dtype's tolerance, or a few times eager's own error). False where either build has
// no reference error: then the difference stays a runtime difference.
bool OnlyRounding(const corpus::CompareSide &baseline, const corpus::CompareSide &candidate) {
  if (!baseline.float64_reference.is_object() || !candidate.float64_reference.is_object())
    return false;
  const double before = baseline.float64_reference.value("build_error", -1.0);
  const double after = candidate.float64_reference.value("build_error", -1.0);
  const double limit = candidate.float64_reference.value("limit", 0.0);
  return before >= 0 && after >= 0 && std::isfinite(after) && after <= before + limit;
}

corpus::CompareVerdict Verdict(const TuBuild &baseline, const TuBuild &candidate,
                               const corpus::CompareSide &baseline_side,
                               const corpus::CompareSide &candidate_side) {
  using corpus::CompareVerdict;
  if (baseline.built && !candidate.built)
    return CompareVerdict::kRegression;
  if (!baseline.built && candidate.built)
    return CompareVerdict::kFixed;
  if (!baseline.built)
    return CompareVerdict::kBothFail;
  if (baseline.load_error.empty() && !candidate.load_error.empty())
    return CompareVerdict::kLoadRegression;
  if (baseline.runtime != candidate.runtime &&
      (baseline.runtime == "same" || candidate.runtime == "same"))
    return OnlyRounding(baseline_side, candidate_side) ? CompareVerdict::kRounding
                                                       : CompareVerdict::kRuntimeDiffers;
  return candidate_side.new_warnings.empty() ? CompareVerdict::kSame : CompareVerdict::kNewWarnings;
}

} // namespace

corpus::BuildRecord ToBuildRecord(const TuBuild &build) {
  return {.compiler = build.compiler,
          .argv = build.argv,
          .built = build.built,
          .exit = build.exit,
          .timed_out = build.timed_out,
          .compiler_crashed = build.compiler_crashed,
          .seconds = build.seconds,
          .object_size = build.object_size,
          .errors = build.errors,
          .warnings = build.warnings,
          .first_error = build.first_error,
          .signature = build.signature,
          .load_error = build.load_error,
          .runtime = build.runtime,
          .runtime_detail = build.runtime_detail};
}

corpus::MatrixRecord ToMatrixRecord(const std::vector<TuMatrix> &matrix,
                                    const nlohmann::json &provenance) {
  corpus::MatrixRecord record{.provenance = provenance, .rows = {}};
  for (const auto &row : matrix) {
    corpus::MatrixRow stored{.tu = row.tu.label,
                             .source = row.tu.source.string(),
                             .recording = row.tu.recording.string(),
                             .reference_runtime = row.reference_runtime,
                             .builds = {},
                             .divergence = DivergenceFinding(row),
                             .runtime_finding = RuntimeDivergenceFinding(row),
                             .load_findings = LoadErrorFindings(row),
                             .memory_errors = MemoryErrorFindings(row)};
    for (const auto &build : row.builds)
      stored.builds.push_back(ToBuildRecord(build));
    record.rows.push_back(std::move(stored));
  }
  return record;
}

corpus::CompareRow CompareBuilds(const TuMatrix &row, const KnownWarnings &known) {
  const TuBuild &baseline = row.builds.at(0), &candidate = row.builds.at(1);
  corpus::CompareSide candidate_side = ToSide(candidate);
  const std::set<std::string> before(baseline.warnings.begin(), baseline.warnings.end());
  for (const auto &warning : candidate.warnings)
    if (!before.contains(warning))
      (known.Match(candidate.compiler, warning) ? candidate_side.known_warnings
                                                : candidate_side.new_warnings)
          .push_back(warning);
  corpus::CompareSide baseline_side = ToSide(baseline);
  const auto verdict = Verdict(baseline, candidate, baseline_side, candidate_side);
  return {.tu = row.tu.label,
          .verdict = verdict,
          .baseline = std::move(baseline_side),
          .candidate = std::move(candidate_side),
          .reference_runtime = row.reference_runtime,
          .runtime_finding = RuntimeDivergenceFinding(row)};
}

} // namespace fuzzer::matrix
