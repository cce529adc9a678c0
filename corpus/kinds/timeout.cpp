#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

namespace corpus::kinds::timeout {
namespace {

std::string Key(const Finding &finding) {
  return Signature(finding) + DeathPath(finding) + ProbeNeeds(finding);
}

bool ShowsInRepro(const ReproRun &run, const ReproExpectation &) { return run.timed_out; }

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kTimeout,
          .name = "timeout",
          .detector = Detector::kWorker,
          .meaning = "the worker ran past the case's time",
          .facts = {"api", "template", "wrapper", "shapes", "needs"},
          .confirm_runs = 3,
          .delivery_order = 1,
          .title = "compiled call never returns",
          .expected = "the call ends, as eager does.",
          .key = &Key,
          .shows_in_repro = &ShowsInRepro,
          .ends_the_process = true,
          .unrolls = true};
}

} // namespace corpus::kinds::timeout
