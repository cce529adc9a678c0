#include "fuzzer/matrix/runtime_differential.h"

#include "fuzzer/matrix/tolerances.h"
#include "fuzzer/matrix/warnings.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <set>

namespace fuzzer::matrix {
namespace {

using nlohmann::json;

Replay ReplayOnce(worker::Worker &worker, const std::filesystem::path &module, const CapturedTu &tu,
                  const RuntimeOptions &options, const ReplayFiles &files) {
  // What the TU computes sets how close its float results must be (tolerances.txt).
  const std::string source =
      std::filesystem::exists(tu.source)
          ? support::ReadTextFile(tu.source, "captured source", std::size_t{1} << 26)
          : std::string();
  json request = {{"op", "replay"},
                  {"module", module.string()},
                  {"entry", tu.entry},
                  {"recording", tu.recording.string()},
                  {"family", OpFamilyOf(source)},
                  {"tolerances", options.tolerances.empty() ? ToleranceTable::CheckedIn().ToJson()
                                                            : options.tolerances}};
  for (const auto &[key, path] : {std::pair{"call_journal", &files.call_journal},
                                  {"probe_dir", &files.probe_dir},
                                  {"keep_outputs", &files.keep_outputs},
                                  {"against", &files.against}})
    if (!path->empty())
      request[key] = path->string();
  // The case's float64 reference, kept beside its recordings by the worker that ran it.
  if (const auto reference = tu.recording.parent_path() / "reference.pt";
      std::filesystem::exists(reference))
    request["reference"] = reference.string();
  const worker::WorkerReply reply = worker.Request(request, options.timeout);
  if (reply.status == worker::ReplyStatus::kTimedOut)
    return {"timeout", {{"detail", reply.detail}}};
  if (reply.status != worker::ReplyStatus::kOk)
    return {"crashed", {{"detail", reply.detail}, {"worker_log_tail", reply.stderr_tail}}};
  if (reply.message.contains("error"))
    return {"error", {{"detail", reply.message["error"]}}};
  const json &replay = reply.message.at("replay");
  return {replay.value("status", "error"), replay};
}

// Every probed build's kernels against the first probed build that reproduced Inductor's
// outputs: a build whose module returns the same tensors but one of whose kernels wrote
// something else is a runtime difference too, named by that kernel.
void CompareKernelProbes(TuMatrix &row, worker::Worker &worker, const RuntimeOptions &options,
                         const Progress &progress) {
  const TuBuild *reference = nullptr;
  for (const auto &build : row.builds)
    if (!build.probe_dir.empty() && build.runtime == "same") {
      reference = &build;
      break;
    }
  if (!reference)
    return;
  for (auto &build : row.builds) {
    if (&build == reference || build.probe_dir.empty())
      continue;
    const worker::WorkerReply reply = worker.Request({{"op", "compare_probes"},
                                                      {"reference", reference->probe_dir.string()},
                                                      {"candidate", build.probe_dir.string()}},
                                                     options.timeout);
    if (reply.status != worker::ReplyStatus::kOk || reply.message.contains("error") ||
        !reply.message.contains("compare_probes")) {
      if (progress)
        progress(fmt::format("kernel probes {} on {}: not compared: {}", row.tu.label,
                             build.compiler,
                             reply.message.value("error", json(reply.detail)).dump()));
      continue;
    }
    json compared = reply.message["compare_probes"];
    compared["reference"] = reference->compiler;
    if (progress)
      progress(fmt::format("kernel probes {} on {} against {}: {} ({} buffer(s))", row.tu.label,
                           build.compiler, reference->compiler, compared.value("status", "?"),
                           compared.value("probes_compared", 0)));
    if (compared.value("status", "") != "differs")
      continue;
    if (build.runtime == "same") {
      build.runtime = "differs";
      build.runtime_detail = {{"status", "differs"},
                              {"inside", true},
                              {"kernels", compared["kernels"]},
                              {"reference", reference->compiler},
                              {"worst", compared["worst"]}};
    } else {
      build.runtime_detail["kernel_probes"] = compared;
    }
  }
}

// The builds that differ from Inductor's all differ by rounding: none is further from the case's
// float64 reference than the closest build that reproduces Inductor's results, by more than the
// case's limit. False where a build crashed or hung, or where any lacks a reference error.
bool OnlyRounding(const TuMatrix &row) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  std::optional<double> closest;
  std::vector<const json *> differing;
  for (const auto &build : row.builds) {
    if (build.sanitized || !build.runtime_detail.is_object())
      continue;
    const json reference = build.runtime_detail.value("float64_reference", json());
    if (build.runtime == "same" && reference.is_object())
      closest = std::min(closest.value_or(kUnknown), reference.value("build_error", kUnknown));
    else if (build.runtime == "differs")
      differing.push_back(&build.runtime_detail["float64_reference"]);
    else if (build.runtime == "crashed" || build.runtime == "timeout" || build.runtime == "error")
      return false;
  }
  if (!closest || differing.empty())
    return false;
  for (const json *reference : differing)
    if (!reference->is_object() ||
        !(reference->value("build_error", kUnknown) <= *closest + reference->value("limit", 0.0)))
      return false;
  return true;
}

} // namespace

Replay ReplayModule(worker::Worker &worker, const std::filesystem::path &module,
                    const CapturedTu &tu, const RuntimeOptions &options, const ReplayFiles &files) {
  const auto started = std::chrono::steady_clock::now();
  Replay replay = ReplayOnce(worker, module, tu, options, files);
  replay.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return replay;
}

std::string DescribeReplay(const Replay &replay) {
  if (replay.status == "differs" && replay.detail.contains("worst")) {
    const json &worst = replay.detail["worst"];
    if (worst.value("max_abs_error", json(nullptr)).is_null())
      return fmt::format("differs: {}: {}", worst.value("argument", "?"), worst.value("error", ""));
    return fmt::format("differs: {} ({}) at {}: {} instead of {}, {} of {} elements",
                       worst.value("argument", "?"), worst.value("dtype", "?"),
                       worst.value("index", json::array()).dump(), worst.value("actual", 0.0),
                       worst.value("expected", 0.0), worst.value("mismatched_elements", 0),
                       worst.value("elements", 0));
  }
  if (replay.status == "same")
    return fmt::format("same on {} tensor(s)", replay.detail.value("tensors_compared", 0));
  const json detail = replay.detail.value("detail", json(""));
  return replay.status + ": " + (detail.is_string() ? detail.get<std::string>() : detail.dump());
}

void ReplayRecordedCalls(std::vector<TuMatrix> &matrix, worker::Worker &worker,
                         const RuntimeOptions &options, const Progress &progress) {
  for (auto &row : matrix) {
    if (row.tu.recording.empty())
      continue;
    if (!std::filesystem::exists(row.tu.recording)) {
      row.reference_runtime = "missing";
      if (progress)
        progress(fmt::format("runtime {}: recording {} is gone, not replayed", row.tu.label,
                             row.tu.recording.string()));
      continue;
    }
    if (std::filesystem::exists(row.tu.reference_module)) {
      const Replay reference = ReplayModule(worker, row.tu.reference_module, row.tu, options);
      row.reference_runtime = reference.status;
      if (progress)
        progress(fmt::format("runtime {} on Inductor's build: {}", row.tu.label,
                             DescribeReplay(reference)));
      if (reference.status != "same")
        continue; // a build that does not reproduce itself says nothing about other compilers
    } else {
      row.reference_runtime = "missing";
    }
    for (auto &build : row.builds) {
      if (!build.built || !build.load_error.empty() || build.sanitized)
        continue;
      const Replay replay = ReplayModule(worker, build.output, row.tu, options);
      build.runtime = replay.status;
      build.runtime_detail = replay.detail;
      build.runtime_seconds = replay.seconds;
      if (progress)
        progress(fmt::format("runtime {} on {}: {}", row.tu.label, build.compiler,
                             DescribeReplay(replay)));
      if (build.probe_module.empty() || replay.status != "same")
        continue;
      const auto probe_dir =
          build.probe_module.parent_path() / (build.probe_module.stem().string() + ".probes");
      std::filesystem::remove_all(probe_dir);
      const Replay probed =
          ReplayModule(worker, build.probe_module, row.tu, options, {.probe_dir = probe_dir});
      if (probed.status == "same")
        build.probe_dir = probe_dir;
      else if (progress)
        progress(fmt::format("kernel probes {} on {}: the probed build's replay says {}",
                             row.tu.label, build.compiler, DescribeReplay(probed)));
    }
    CompareKernelProbes(row, worker, options, progress);
  }
}

std::optional<corpus::Finding> RuntimeDivergenceFinding(const TuMatrix &row) {
  std::vector<std::string> same, differs;
  const TuBuild *worst = nullptr;
  for (const auto &build : row.builds) {
    if (build.sanitized)
      continue; // its own finding: memory-error
    if (build.runtime == "same")
      same.push_back(build.compiler);
    else if (build.runtime == "differs" || build.runtime == "crashed" ||
             build.runtime == "timeout") {
      differs.push_back(build.compiler);
      if (!worst || (worst->runtime != "differs" && build.runtime == "differs"))
        worst = &build;
    }
  }
  if (differs.empty() || OnlyRounding(row))
    return std::nullopt;
  json finding = {{"kind", "runtime-divergence"}, {"tu", row.tu.label},
                  {"same_as_inductor", same},     {"differs_on", differs},
                  {"compiler", worst->compiler},  {"how", worst->runtime}};
  std::string dtype, kernel;
  if (worst->runtime == "differs" && worst->runtime_detail.contains("worst")) {
    const json &difference = worst->runtime_detail["worst"];
    dtype = difference.value("dtype", "");
    for (const char *field : {"argument", "dtype", "index", "flat_index", "expected", "actual",
                              "max_abs_error", "max_rel_error", "mismatched_elements", "elements",
                              "tolerance", "kernel", "site", "call", "kernel_argument", "buffer"})
      if (difference.contains(field))
        finding[field] = difference[field];
    if (worst->runtime_detail.value("inside", false)) {
      finding["inside"] = true;
      finding["kernels"] = worst->runtime_detail["kernels"];
      finding["reference"] = worst->runtime_detail["reference"];
      kernel = difference.value("kernel", "");
    }
  } else {
    finding["detail"] = worst->runtime_detail.value("detail", json(""));
  }
  corpus::Finding result;
  result.kind = corpus::FindingKind::kRuntimeDivergence;
  result.essence.Add("same", corpus::FactValue::ListOf(same))
      .Add("differs", corpus::FactValue::ListOf(differs))
      .Add("how", worst->runtime)
      .Add("dtype", dtype);
  if (!kernel.empty()) // the module's outputs agree: the kernel inside it is the finding
    result.essence.Add("kernel", NameShape(kernel));
  result.summary =
      kernel.empty()
          ? fmt::format("{} computes differently on {} than Inductor's build", row.tu.label,
                        fmt::join(differs, ", "))
          : fmt::format("{}: kernel {} writes differently on {} than on {}, though the module "
                        "returns the same",
                        row.tu.label, kernel, fmt::join(differs, ", "),
                        worst->runtime_detail.value("reference", ""));
  result.compilers = differs;
  result.subject = row.tu.label;
  result.detail = finding;
  return result;
}

} // namespace fuzzer::matrix
