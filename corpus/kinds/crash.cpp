#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

#include <string>

namespace corpus::kinds::crash {
namespace {

std::string Key(const Finding &finding) {
  return Signature(finding) + DeathPath(finding) + ProbeNeeds(finding);
}

// The same signal; a corrupted heap is any of the signals glibc's checks end it with.
bool ShowsInRepro(const ReproRun &run, const ReproExpectation &expected) {
  if (!Failed(run) || !run.signal || !expected.facts.contains("signal"))
    return false;
  const std::string signal = std::to_string(*run.signal);
  return expected.facts.at("signal") == kMemoryCorruptionSignal
             ? IsMemoryCorruptionCrash(signal, run.last_line)
             : signal == expected.facts.at("signal");
}

// A corrupted heap (or a wild write) may be the memory error a sanitizer names on every run;
// a probe of the untouched case decides. Other deaths (an abort, a killed worker) reduce as found.
ReduceForm SanitizedWhenMemory(const ReproExpectation &expected) {
  const auto signal = expected.facts.find("signal");
  return signal != expected.facts.end() && signal->second == kMemoryCorruptionSignal
             ? ReduceForm::kSanitizedWhenItReports
             : ReduceForm::kAsFound;
}

// "... (double free or corruption (out))", or the signal when nothing was written.
std::string TitleWords(std::string_view title, const std::map<std::string, std::string> &facts) {
  if (const auto abort = TitleFact(facts, "abort"); !abort.empty())
    return fmt::format("{} ({})", title, abort);
  if (const auto signal = TitleFact(facts, "signal"); !signal.empty())
    return fmt::format("{} (signal {})", title, signal);
  return std::string(title);
}

} // namespace

FindingKindRow Row() {
  return {
      .kind = FindingKind::kCrash,
      .name = "crash",
      .detector = Detector::kWorker,
      .meaning =
          "the worker died: a signal, an abort, a broken reply, or resident memory over its limit",
      .facts = {"api", "signal", "abort", "protocol", "template", "wrapper", "shapes", "needs"},
      .probed = true,
      .confirm_runs = 3,
      .delivery_order = 1,
      .title = "compiled call crashes the process",
      .expected = kRunsAsEager,
      .key = &Key,
      .shows_in_repro = &ShowsInRepro,
      .reduce_form = &SanitizedWhenMemory,
      .title_words = &TitleWords,
      .ends_the_process = true,
      .unrolls = true};
}

} // namespace corpus::kinds::crash
