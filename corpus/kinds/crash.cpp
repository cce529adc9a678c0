#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

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
      .reduce_form = &SanitizedWhenMemory};
}

} // namespace corpus::kinds::crash
