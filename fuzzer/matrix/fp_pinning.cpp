#include "fuzzer/matrix/fp_pinning.h"

#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace fuzzer::matrix {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::vector<std::string> &FlagsFor(const FpPin &pin, CompilerFamily family) {
  return family == CompilerFamily::kGcc ? pin.gcc_flags : pin.clang_flags;
}

Compiler Pinned(Compiler compiler, const FpPin &pin) {
  const auto &flags = FlagsFor(pin, compiler.family);
  compiler.extra_flags.insert(compiler.extra_flags.end(), flags.begin(), flags.end());
  return compiler;
}

// Why a pin cannot change anything for this TU, or empty.
std::string Pointless(const FpPin &pin, const TuMatrix &row, const std::string &source,
                      const PinningOptions &options) {
  if (pin.drop_omp_simd && source.find("omp simd") != std::string::npos)
    return "";
  const std::set<std::string> captured(row.tu.argv.begin(), row.tu.argv.end());
  for (const Compiler *compiler : {&options.baseline, &options.candidate})
    for (const auto &flag : FlagsFor(pin, compiler->family))
      if (!captured.contains(flag))
        return "";
  return pin.gcc_flags.empty() && pin.clang_flags.empty() ? "the TU has no #pragma omp simd"
                                                          : "Inductor's command already has it";
}

// One replay's agreement with another build's kept outputs, or why there is none.
json Agreement(const Replay &replay) {
  if (replay.detail.is_object() && replay.detail.contains("agreement") &&
      replay.detail["agreement"].is_object())
    return replay.detail["agreement"];
  return {{"error", DescribeReplay(replay)}};
}

// Replays `first` keeping what it leaves, then `second` against it.
json CompareOutputs(const fs::path &first, const fs::path &second, const TuMatrix &row,
                    const fs::path &folder, const PinningOptions &options, worker::Worker &worker) {
  fs::create_directories(folder);
  const fs::path kept = folder / "baseline-outputs.pt";
  const Replay before =
      ReplayModule(worker, first, row.tu, options.runtime, {.keep_outputs = kept});
  if (!fs::exists(kept))
    return {{"error", "the baseline's pinned build did not replay: " + DescribeReplay(before)}};
  return Agreement(ReplayModule(worker, second, row.tu, options.runtime, {.against = kept}));
}

json TryPin(const FpPin &pin, std::size_t index, const TuMatrix &row, const std::string &source,
            const PinningOptions &options, worker::Worker &worker) {
  json outcome = {{"pin", std::string(pin.name)}};
  const fs::path folder = options.work_dir / fmt::format("pin-{}", index);
  CapturedTu tu = row.tu;
  if (pin.drop_omp_simd) {
    fs::create_directories(folder);
    tu.source = folder / tu.source.filename();
    support::WriteFileAtomically(tu.source, DropOmpSimd(source));
  }
  const auto builds =
      BuildMatrix({tu},
                  {.compilers = {Pinned(options.baseline, pin), Pinned(options.candidate, pin)},
                   .jobs = options.jobs,
                   .timeout = options.build_timeout,
                   .work_dir = folder / "objects",
                   .shared_prefix = false,
                   .kernel_probes = false},
                  {});
  for (const auto &build : builds.at(0).builds)
    if (!build.built) {
      outcome["error"] = fmt::format("{} did not build it: {}", build.compiler,
                                     build.first_error.empty() ? build.exit : build.first_error);
      return outcome;
    }
  const json agreement = CompareOutputs(builds[0].builds[0].output, builds[0].builds[1].output, row,
                                        folder, options, worker);
  outcome.update(agreement);
  return outcome;
}

std::string Number(const json &value) {
  return value.is_number() ? fmt::format("{:.3g}", value.get<double>()) : std::string("?");
}

} // namespace

const std::vector<FpPin> &FpPins() {
  static const std::vector<FpPin> pins = [] {
    std::vector<FpPin> single = {
        {"-ffp-contract=off",
         {"-ffp-contract=off"},
         {"-ffp-contract=off"},
         false,
         "no fused multiply-add: every a*b+c is rounded twice (Clang contracts within an "
         "expression by default, GCC in ISO C++ mode does not)"},
        {"-fno-associative-math",
         {"-fno-associative-math"},
         {"-fno-associative-math"},
         false,
         "sums and products in source order: no reassociation into vector lanes, which "
         "-ffast-math and -funsafe-math-optimizations allow"},
        {"no auto-vectorisation",
         {"-fno-tree-vectorize"},
         {"-fno-vectorize", "-fno-slp-vectorize"},
         false,
         "the loops Inductor left scalar stay scalar: each compiler vectorises them, and their "
         "reductions, its own way"},
        {"#pragma omp simd removed",
         {},
         {},
         true,
         "OpenMP's simd directive lets the compiler reorder a loop's reduction whatever the "
         "fast-math flags say"},
    };
    FpPin all{.name = "all pins together", .drop_omp_simd = true, .why = "every pin above"};
    for (const auto &pin : single) {
      all.gcc_flags.insert(all.gcc_flags.end(), pin.gcc_flags.begin(), pin.gcc_flags.end());
      all.clang_flags.insert(all.clang_flags.end(), pin.clang_flags.begin(), pin.clang_flags.end());
    }
    single.push_back(std::move(all));
    single.push_back({"-O0",
                      {"-O0"},
                      {"-O0"},
                      false,
                      "no optimisation at all: builds that still differ read different code (a "
                      "preprocessor branch on the compiler, a header or library of its own), "
                      "they do not optimise the same code differently"});
    return single;
  }();
  return pins;
}

std::string DropOmpSimd(const std::string &source) {
  static const std::regex pragma(R"(^\s*#\s*pragma\s+omp\s+simd\b.*$)");
  std::istringstream lines(source);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (!std::regex_match(line, pragma))
      out += line;
    out += "\n";
  }
  if (!source.empty() && source.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

json ExplainDifference(const TuMatrix &row, const PinningOptions &options, worker::Worker &worker,
                       const Progress &progress) {
  const TuBuild &baseline = row.builds.at(0), &candidate = row.builds.at(1);
  json explanation = {{"unpinned", CompareOutputs(baseline.output, candidate.output, row,
                                                  options.work_dir / "unpinned", options, worker)},
                      {"pins", json::array()},
                      {"explained_by", nullptr}};
  if (explanation["unpinned"].value("identical", false))
    return explanation; // they agree bit for bit here: nothing for a pin to explain
  const std::string source =
      fs::exists(row.tu.source)
          ? support::ReadTextFile(row.tu.source, "captured source", std::size_t{1} << 26)
          : std::string();
  const auto &pins = FpPins();
  for (std::size_t index = 0; index < pins.size(); ++index) {
    const FpPin &pin = pins[index];
    json outcome = {{"pin", std::string(pin.name)}};
    if (std::chrono::steady_clock::now() > options.deadline)
      outcome["skipped"] = "the pins' time was spent";
    else if (const std::string why = Pointless(pin, row, source, options); !why.empty())
      outcome["skipped"] = why;
    else
      outcome = TryPin(pin, index, row, source, options, worker);
    if (progress)
      progress(fmt::format("fp pinning {} with {}: {}", row.tu.label, pin.name,
                           outcome.contains("skipped") ? "skipped, " + outcome["skipped"].dump()
                           : outcome.contains("error") ? outcome["error"].get<std::string>()
                           : outcome.value("identical", false)
                               ? "the builds agree"
                               : "still differ by " + Number(outcome["max_abs_difference"])));
    const bool agree = outcome.value("identical", false);
    explanation["pins"].push_back(std::move(outcome));
    if (agree) {
      explanation["explained_by"] = std::string(pin.name);
      break;
    }
  }
  return explanation;
}

std::string DescribePinning(const json &pinning) {
  if (!pinning.is_object())
    return "";
  if (pinning.contains("skipped"))
    return "floating-point pins not tried: " + pinning["skipped"].get<std::string>();
  const json unpinned = pinning.value("unpinned", json::object());
  if (unpinned.value("identical", false))
    return "rebuilt apart, the two builds leave identical tensors";
  const std::string was = fmt::format("they differ by up to {} unpinned",
                                      Number(unpinned.value("max_abs_difference", json())));
  if (pinning.value("explained_by", json()).is_string())
    return fmt::format("{} makes them agree bit for bit ({})",
                       pinning["explained_by"].get<std::string>(), was);
  std::vector<std::string> tried;
  for (const auto &pin : pinning.value("pins", json::array()))
    if (!pin.contains("skipped"))
      tried.push_back(pin.value("pin", "?"));
  return fmt::format("no floating-point pin makes them agree ({} tried; {})", tried.size(), was);
}

} // namespace fuzzer::matrix
